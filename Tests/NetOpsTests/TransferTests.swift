import DemoServer
import Foundation
import TestSupport
import Testing

@testable import NetOps

/// Downloads, uploads, progress and temporary files.
@Suite(.timeLimit(.minutes(2)))
struct TransferTests {
    struct UploadReceipt: Decodable {
        let length: Int
        let sha256: String
    }

    struct MultipartEcho: Decodable {
        struct Part: Decodable {
            let name: String
            let filename: String?
            let contentType: String?
            let length: Int
            let sha256: String
            let value: String?
        }
        let parts: [Part]
    }

    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(arguments: TestEngine.allCases) func downloadMovesIntoPlaceAtomically(_ engine: TestEngine) async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("blob.bin")
        try Data("old".utf8).write(to: destination)
        let size = 5 << 20
        let operation = DO.get(try await TestServer.url("bytes/\(size)"), to: destination).on(engine)
        try await operation.run()
        #expect(operation.fileURL == destination)
        #expect(sha256(try Data(contentsOf: destination)) == payloadSHA256(size: size))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["blob.bin"])
    }

    @Test(arguments: TestEngine.allCases) func failedDownloadLeavesTheDestinationUntouched(_ engine: TestEngine) async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("keep.bin")
        try Data("previous".utf8).write(to: destination)
        let operation = DO.get(try await TestServer.url("status/404"), to: destination).on(engine)
        await #expect(throws: NetOpsError.self) { try await operation.run() }
        #expect(try Data(contentsOf: destination) == Data("previous".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["keep.bin"])
    }

    @Test(arguments: TestEngine.allCases) func downloadProgressIsMonotoneAndEndsAtTheTotal(_ engine: TestEngine) async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = 4 << 20
        let seen = Recorder<TransferProgress>()
        let operation = DO.get(try await TestServer.url("bytes/\(size)"), to: directory.appendingPathComponent("f")).on(engine)
            .onProgress { _, progress in seen.append(progress) }
        try await operation.run()
        let received = seen.all.map(\.bytesReceived)
        #expect(received.count > 2)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(received.last == Int64(size))
        #expect(seen.all.last?.totalBytesToReceive == Int64(size))
        #expect(seen.all.last?.fractionCompleted == 1)
    }

    @Test(arguments: TestEngine.allCases) func uploadFromMemory(_ engine: TestEngine) async throws {
        let body = DemoPayload.data(size: 3 << 20)
        let sent = Recorder<Int64>()
        let operation = UO.upload(body, to: try await TestServer.url("upload")).on(engine)
            .onProgress { _, progress in sent.append(progress.bytesSent) }
        try await operation.run()
        let receipt = try operation.decode(UploadReceipt.self)
        #expect(receipt.length == body.count)
        #expect(receipt.sha256 == sha256(body))
        #expect(zip(sent.all, sent.all.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(sent.all.last == Int64(body.count))
    }

    @Test(arguments: TestEngine.allCases) func uploadStreamsAFile(_ engine: TestEngine) async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        let body = DemoPayload.data(size: 6 << 20)
        try body.write(to: file)
        let operation = UO.upload(fileAt: file, to: try await TestServer.url("upload"), method: .put).on(engine)
        try await operation.run()
        let receipt = try operation.decode(UploadReceipt.self)
        #expect(receipt.length == body.count)
        #expect(receipt.sha256 == sha256(body))
        #expect(operation.progress.bytesSent == Int64(body.count))
    }

    @Test(arguments: TestEngine.allCases) func multipartFieldsAndFiles(_ engine: TestEngine) async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = directory.appendingPathComponent("photo.jpg")
        let photoBytes = DemoPayload.data(size: 300_000)
        try photoBytes.write(to: photo)
        var form = MultipartFormData()
        form.append("holiday \"2026\"", name: "caption")
        form.append(Data("{\"a\":1}".utf8), name: "meta", filename: "meta.json", contentType: "application/json")
        try form.append(fileAt: photo, name: "photo", contentType: "image/jpeg")

        let operation = UO.multipart(form, to: try await TestServer.url("multipart")).on(engine)
        try await operation.run()
        let echo = try operation.decode(MultipartEcho.self)
        #expect(echo.parts.map(\.name) == ["caption", "meta", "photo"])
        #expect(echo.parts[0].value == "holiday \"2026\"")
        #expect(echo.parts[1].filename == "meta.json")
        #expect(echo.parts[1].contentType == "application/json")
        #expect(echo.parts[2].filename == "photo.jpg")
        #expect(echo.parts[2].length == photoBytes.count)
        #expect(echo.parts[2].sha256 == sha256(photoBytes))
    }

    /// A form is written when its operation starts, on the thread that starts it: making the
    /// operation (on a request handler's thread, say) does no file I/O.
    @Test(arguments: TestEngine.allCases) func aMultipartBodyIsWrittenWhenTheOperationStarts(_ engine: TestEngine) async throws {
        var form = MultipartFormData()
        form.append("later", name: "caption")
        let operation = UO.multipart(form, to: try await TestServer.url("multipart")).on(engine)
        let file = try #require(operation.ownedBodyFile)
        #expect(!FileManager.default.fileExists(atPath: file.path), "written when made")
        try await operation.run()
        #expect(try operation.decode(MultipartEcho.self).parts.map(\.value) == ["later"])
        #expect(!FileManager.default.fileExists(atPath: file.path), "left behind")
    }

    @Test(arguments: TestEngine.allCases) func multipartWithAMissingFileIsRefusedUpFront(_ engine: TestEngine) async throws {
        var form = MultipartFormData()
        #expect(throws: CocoaError.self) {
            try form.append(fileAt: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"), name: "file")
        }
        form.append("x", name: "y")
        #expect(form.parts.count == 1)
    }

    /// FoundationNetworking never deletes its download temp files on Linux; NetOps never makes
    /// any, and deletes the multipart bodies it assembles.
    @Test(arguments: TestEngine.allCases) func noTemporaryFilesAreLeft(_ engine: TestEngine) async throws {
        let temporary = FileManager.default.temporaryDirectory
        @Sendable func ours() throws -> Set<String> {
            Set(
                try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter {
                    $0.hasSuffix(".tmp")
                })
        }
        let before = try ours()
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var form = MultipartFormData()
        form.append(DemoPayload.data(size: 100_000), name: "f", filename: "f.bin")
        let upload = UO.multipart(form, to: try await TestServer.url("multipart")).on(engine)
        let bodyFile = try #require(upload.ownedBodyFile)
        #expect(!FileManager.default.fileExists(atPath: bodyFile.path), "written when the operation starts, not when made")
        let download = DO.get(try await TestServer.url("bytes/\(2 << 20)"), to: directory.appendingPathComponent("d")).on(engine)
        let cancelled = DO.get(try await TestServer.url("bytes/\(1 << 30)?rate=\(1 << 20)"), to: directory.appendingPathComponent("c")).on(engine)
        cancelled.start()
        try await upload.run()
        try await download.run()
        cancelled.cancel()
        await cancelled.finished()
        #expect(!FileManager.default.fileExists(atPath: bodyFile.path), "the multipart body was left behind")
        // Other tests' transfers keep `.tmp` files beside these while they run and remove them
        // when they end: what these left would stay.
        _ = await eventually(within: 30) { (try? ours().subtracting(before).isEmpty) ?? false }
        let left = try ours().subtracting(before)
        #expect(left.isEmpty, "left in the temporary directory: \(left)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(kept == ["d"], "the destination folder holds \(kept); the cancelled download ended \(cancelled.stateDescription)")
    }
}
