import Foundation
import NetOps
import TestSupport
import Testing

/// Uploads and multipart parts announce the sniffed type when the caller gives none: what
/// DemoServer received, over loopback, on both engines.
@Suite(.timeLimit(.minutes(2)))
struct MIMEUploadTests {
    struct UploadEcho: Decodable {
        let length: Int
        let contentType: String?
    }

    struct MultipartEcho: Decodable {
        struct Part: Decodable {
            let name: String
            let filename: String?
            let contentType: String?
        }
        let parts: [Part]
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D] + Array("IHDR".utf8) + Array(repeating: 0, count: 13))
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + Array(repeating: 0, count: 64))

    @Test(arguments: TestEngine.allCases) func uploadWithoutAContentTypeSendsTheSniffedOne(_ engine: TestEngine) async throws {
        let url = try await TestServer.url("upload")
        let sniffed = UO.upload(Self.png, to: url).on(engine)
        try await sniffed.run()
        let echo = try sniffed.decode(UploadEcho.self)
        #expect(echo.contentType == "image/png")
        #expect(echo.length == Self.png.count)

        let given = UO.upload(Self.png, to: url, headers: ["content-type": "application/x-custom"]).on(engine)
        try await given.run()
        #expect(try given.decode(UploadEcho.self).contentType == "application/x-custom")
    }

    @Test(arguments: TestEngine.allCases) func fileUploadSendsTheTypeOfItsBytes(_ engine: TestEngine) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
        try Self.jpeg.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upload = UO.upload(fileAt: file, to: try await TestServer.url("upload"), method: .put).on(engine)
        try await upload.run()
        #expect(try upload.decode(UploadEcho.self).contentType == "image/jpeg")
    }

    @Test(arguments: TestEngine.allCases) func multipartPartsDefaultToTheSniffedType(_ engine: TestEngine) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("part-\(UUID().uuidString).csv")
        try Data("a,b\n1,2\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartFormData()
        form.append("caption", name: "text")
        form.append(Self.jpeg, name: "photo", filename: "IMG_0001")
        form.append(Data(#"{"album":7}"#.utf8), name: "meta", filename: "meta")
        form.append(Data([0x00, 0x01, 0x02]), name: "blob", filename: "blob")
        form.append(Self.png, name: "declared", filename: "x.png", contentType: "image/x-declared")
        try form.append(fileAt: file, name: "table")

        let operation = UO.multipart(form, to: try await TestServer.url("multipart")).on(engine)
        try await operation.run()
        let echo = try operation.decode(MultipartEcho.self)
        let types = Dictionary(uniqueKeysWithValues: echo.parts.map { ($0.name, $0.contentType) })
        #expect(types["text"] == .some(nil), "a text field carries no type")
        #expect(types["photo"] == "image/jpeg")
        #expect(types["meta"] == "application/json")
        #expect(types["blob"] == "application/octet-stream")
        #expect(types["declared"] == "image/x-declared")
        #expect(types["table"] == "text/csv")
    }
}
