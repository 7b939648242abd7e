import DemoServer
import Foundation
import TestSupport
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

    @Test(arguments: TestEngine.allCases) func getJSON(_ engine: TestEngine) async throws {
        let operation = try await DTO.get(TestServer.url("json")).on(engine).run()
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

    @Test(
        arguments: TestEngine.allCases,
        [
            MethodCase(method: .get, parametersInQuery: true),
            MethodCase(method: .delete, parametersInQuery: true),
            MethodCase(method: .post, parametersInQuery: false),
            MethodCase(method: .put, parametersInQuery: false),
            MethodCase(method: .patch, parametersInQuery: false),
        ])
    func parametersGoWhereTheMethodSays(_ engine: TestEngine, _ testCase: MethodCase) async throws {
        let parameters: Parameters = ["user_ids": 7, "fields": "photo_100 city", "flag": true]
        let operation = try await DTO.request(testCase.method, TestServer.url("echo"), parameters: parameters, headers: ["X-Trace": "abc"]).on(engine)
            .run()
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

    @Test(arguments: TestEngine.allCases) func formEncodingEscapesAndSortsKeys(_ engine: TestEngine) async throws {
        let operation = try await DTO.post(TestServer.url("echo"), parameters: ["b": "x y&z", "a": [1, 2]], encoding: .form).on(engine).run()
        let echo = try operation.decode(Echo.self)
        #expect(echo.body == "a=1&a=2&b=x%20y%26z")
        #expect(echo.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test(arguments: TestEngine.allCases, [404, 418, 500, 503])
    func unacceptedStatusFailsButKeepsBody(_ engine: TestEngine, _ status: Int) async throws {
        let operation = await syncStartDetached(DTO.get(try await TestServer.url("status/\(status)")).on(engine))
        #expect(operation.state == .failedFinished)
        #expect(operation.error?.httpStatus == status)
        #expect(String(decoding: operation.receivedData, as: UTF8.self).contains("\(status)"))
    }

    @Test(arguments: TestEngine.allCases) func acceptableStatusCodesCanWiden(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("status/404")).on(engine)
        operation.acceptableStatusCodes = [200, 404]
        try await operation.run()
        #expect(operation.state == .successFinished)
        #expect(operation.statusCode == 404)
    }

    /// FoundationNetworking hangs forever on a 401 with `WWW-Authenticate` unless the delegate
    /// answers the challenge: the operation must end with the plain 401.
    @Test(.timeLimit(.minutes(1)), arguments: TestEngine.allCases, ["auth/challenge", "auth/plain"])
    func unauthorizedEndsAsAn401(_ engine: TestEngine, _ path: String) async throws {
        let operation = DTO.get(try await TestServer.url(path)).on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(operation.state == .failedFinished)
        #expect(operation.statusCode == 401)
        #expect(operation.error?.httpStatus == 401)
        #expect(String(decoding: operation.receivedData, as: UTF8.self).contains("unauthorized"))
    }

    @Test(arguments: TestEngine.allCases) func largeBodyArrivesWhole(_ engine: TestEngine) async throws {
        let size = 8 << 20
        let operation = try await DTO.get(TestServer.url("bytes/\(size)")).on(engine).run()
        #expect(operation.receivedData.count == size)
        #expect(sha256(operation.receivedData) == payloadSHA256(size: size))
    }

    @Test(arguments: TestEngine.allCases) func updateRequestBeforeStartOnly(_ engine: TestEngine) async throws {
        let operation = DTO.get(try await TestServer.url("echo")).on(engine)
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
