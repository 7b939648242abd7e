import APILayer
import Foundation
import NetOps
import TestSupport
import Testing
import Validator

/// A file uploaded through the recipe is streamed from disk: 200 MiB sent with the process's
/// resident memory growing by less than 16 MiB. Holds the process gate exclusively, so no other
/// test's allocations count. Not run under AddressSanitizer, whose quarantine keeps freed
/// memory resident (`ResidentMemory.isMeaningful`).
@Suite("The recipe: upload memory", .processGate(.exclusive, minutes: 5), .enabled(if: ResidentMemory.isMeaningful))
struct RecipeUploadMemoryTests {
    enum Blob: String, APIMethod {
        case upload
        var httpMethod: HTTPMethod { .post }
        var encoding: RequestEncoding { .query }
        var defaultParameters: Parameters { [:] }
        var validation: ValidationPolicy { .custom { _ in [] } }
    }

    struct Received: Decodable, Sendable {
        let length: Int
    }

    @Test(arguments: TestEngine.allCases)
    func twoHundredMiBGoWithFlatMemory(_ engine: TestEngine) async throws {
        let server = try await TestServer.get()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-upload-\(UUID().uuidString).bin")
        let size = 200 << 20
        try Self.writeFile(at: file, size: size)
        defer { try? FileManager.default.removeItem(at: file) }
        let scope = APIScope(
            name: "upload-memory-\(engine)", configuration: APIScope.Configuration(baseURL: server.baseURL, session: engine.makeSession()))
        // Warm up: the engine's first connection and buffers are not the upload's cost.
        let small = try Self.smallFile()
        defer { try? FileManager.default.removeItem(at: small) }
        _ = try await APIManager.withDefaultAPI(scope) {
            try await APIManager.upload(Blob.upload, fileAt: small, as: Received.self).run()
        }
        // Tests outside the gate may allocate meanwhile: a second upload decides a first that
        // measured over the bound (loading the file whole fails both, by 200 MiB or more).
        var smallest = Int64.max
        for _ in 0..<2 where smallest >= 16 << 20 {
            var received: Received?
            let growth = try await ResidentMemory.peakGrowth {
                received = try await APIManager.withDefaultAPI(scope) {
                    try await APIManager.upload(Blob.upload, fileAt: file, as: Received.self).run()
                }
            }
            #expect(received?.length == size)
            smallest = min(smallest, try #require(growth, "peak resident memory cannot be measured here"))
        }
        #expect(smallest < 16 << 20, "resident memory grew by \(smallest >> 20) MiB for a \(size >> 20) MiB upload")
    }

    /// Writes `size` bytes in 1 MiB chunks (the test itself never holds the file).
    static func writeFile(at url: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteNoPermission) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let chunk = Data(repeating: 0x5A, count: 1 << 20)
        for _ in 0..<(size / chunk.count) { try handle.write(contentsOf: chunk) }
    }

    static func smallFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-upload-small-\(UUID().uuidString).bin")
        try Data(repeating: 1, count: 4_096).write(to: url)
        return url
    }
}
