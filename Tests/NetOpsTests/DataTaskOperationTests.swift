import DemoServer
import Foundation
import Testing
@testable import NetOps

/// Requests, responses and errors of `DataTaskOperation` against DemoServer.
struct DataTaskOperationTests {
    struct Echo: Decodable {
        let method: String
        let path: String
        let query: [String: String]
        let headers: [String: String]
        let bodyLength: Int
        let body: String
    }

    @Test func getJSON() async throws {
        let operation = try await DTO.get(TestServer.url("json")).run()
        #expect(operation.state == .successFinished)
        #expect(operation.statusCode == 200)
        #expect(operation.error == nil)
        let json = try #require(operation.json as? [String: Any])
        #expect(json["name"] as? String == "APILayer")
        #expect(operation.responseHeaders.keys.contains { $0.lowercased() == "content-type" })
    }

    struct MethodCase: Sendable, CustomTestStringConvertible {
        let method: HTTPMethod
        let parametersInQuery: Bool
        var testDescription: String { method.rawValue }
    }

    @Test(arguments: [
        MethodCase(method: .get, parametersInQuery: true),
        MethodCase(method: .delete, parametersInQuery: true),
        MethodCase(method: .post, parametersInQuery: false),
        MethodCase(method: .put, parametersInQuery: false),
        MethodCase(method: .patch, parametersInQuery: false),
    ])
    func parametersGoWhereTheMethodSays(_ testCase: MethodCase) async throws {
        let parameters: Parameters = ["user_ids": 7, "fields": "photo_100 city", "flag": true]
        let operation = try await DTO.request(testCase.method, TestServer.url("echo"), parameters: parameters, headers: ["X-Trace": "abc"]).run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.method == testCase.method.rawValue)
        #expect(echo.headers["x-trace"] == "abc")
        if testCase.parametersInQuery {
            #expect(echo.query == ["user_ids": "7", "fields": "photo_100 city", "flag": "true"])
            #expect(echo.bodyLength == 0)
        } else {
            #expect(echo.query.isEmpty)
            let body = try JSONSerialization.jsonObject(with: Data(echo.body.utf8)) as? [String: Any]
            #expect(body?["user_ids"] as? Int == 7)
            #expect(body?["fields"] as? String == "photo_100 city")
        }
    }

    @Test func formEncodingEscapesAndSortsKeys() async throws {
        let operation = try await DTO.post(TestServer.url("echo"), parameters: ["b": "x y&z", "a": [1, 2]], encoding: .form).run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.body == "a=1&a=2&b=x%20y%26z")
        #expect(echo.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test(arguments: [404, 418, 500, 503])
    func unacceptedStatusFailsButKeepsBody(_ status: Int) async throws {
        let operation = await syncStartDetached(DTO.get(try await TestServer.url("status/\(status)")))
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.httpStatus == status)
        #expect(String(decoding: operation.receivedData, as: UTF8.self).contains("\(status)"))
    }

    @Test func acceptableStatusCodesCanWiden() async throws {
        let operation = DTO.get(try await TestServer.url("status/404"))
        operation.acceptableStatusCodes = [200, 404]
        try await operation.run()
        #expect(operation.state == .successFinished)
        #expect(operation.statusCode == 404)
    }

    /// FoundationNetworking hangs forever on a 401 with `WWW-Authenticate` unless the delegate
    /// answers the challenge: the operation must end with the plain 401.
    @Test(.timeLimit(.minutes(1)), arguments: ["auth/challenge", "auth/plain"])
    func unauthorizedEndsAsAn401(_ path: String) async throws {
        let operation = DTO.get(try await TestServer.url(path))
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        #expect(operation.statusCode == 401)
        #expect(operation.error?.httpStatus == 401)
        #expect(String(decoding: operation.receivedData, as: UTF8.self).contains("unauthorized"))
    }

    @Test func largeBodyArrivesWhole() async throws {
        let size = 8 << 20
        let operation = try await DTO.get(TestServer.url("bytes/\(size)")).run()
        #expect(operation.receivedData.count == size)
        #expect(sha256(operation.receivedData) == payloadSHA256(size: size))
    }

    @Test func updateRequestBeforeStartOnly() async throws {
        let operation = DTO.get(try await TestServer.url("echo"))
        #expect(operation.updateRequest { $0.setValue("1", forHTTPHeaderField: "X-Added") })
        try await operation.run()
        #expect(try operation.decode(Echo.self).headers["x-added"] == "1")
        #expect(!operation.updateRequest { $0.setValue("2", forHTTPHeaderField: "X-Added") })
    }
}

/// `syncStart()` on a plain thread, awaited from async code.
func syncStartDetached<Operation: BaseOperation>(_ operation: Operation) async -> Operation {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: operation.syncStart()) }.start()
    }
}
