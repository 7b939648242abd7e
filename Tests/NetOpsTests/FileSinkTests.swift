import Foundation
import Testing

@testable import NetOps

/// `FileSink` lets go of a partial file in memory, under its operation's lock, and hands its
/// closing and deletion back to run after the lock: the next body goes to a file of a new name,
/// so nothing that runs later can delete or write into the new one.
struct FileSinkTests {
    /// A fresh folder and a sink whose destination is in it.
    static func makeSink() -> (sink: FileSink, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("filesink-\(UUID().uuidString)")
        return (FileSink(destination: folder.appendingPathComponent("body.bin")), folder)
    }

    static func files(in folder: URL) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    @Test func resetStartsANewFileAndHandsTheOldOneBack() throws {
        let (sink, folder) = Self.makeSink()
        defer { try? FileManager.default.removeItem(at: folder) }
        sink.admit(1)
        #expect(try sink.write(Data("first try".utf8), of: 1) == 9)
        let first = sink.partialURL
        #expect(Self.files(in: folder) == [first.lastPathComponent])

        let cleanup = try #require(sink.reset())
        #expect(cleanup.file == first)
        #expect(sink.bytesKept == 0)
        #expect(sink.partialURL != first)
        // The transfer goes on into the new file while the old one still waits for its cleanup.
        #expect(try sink.write(Data("whole".utf8), of: 1) == 5)
        #expect(Self.files(in: folder) == [first.lastPathComponent, sink.partialURL.lastPathComponent])

        cleanup.run()
        #expect(Self.files(in: folder) == [sink.partialURL.lastPathComponent])
        try sink.commit()
        #expect(Self.files(in: folder) == ["body.bin"])
        #expect(try Data(contentsOf: folder.appendingPathComponent("body.bin")) == Data("whole".utf8))
    }

    @Test func discardRefusesLateChunksAndItsCleanupDeletesThePartialFile() throws {
        let (sink, folder) = Self.makeSink()
        defer { try? FileManager.default.removeItem(at: folder) }
        sink.admit(7)
        _ = try sink.write(Data(repeating: 1, count: 1_000), of: 7)
        let cleanup = try #require(sink.discard())
        // A chunk of the discarded transfer that arrives late is dropped, and opens no file.
        #expect(try sink.write(Data(repeating: 2, count: 10), of: 7) == nil)
        #expect(Self.files(in: folder) == [cleanup.file.lastPathComponent])
        cleanup.run()
        #expect(Self.files(in: folder).isEmpty)
    }

    /// What a run that ends (a suspended download) leaves: the length that counts, written
    /// chunks included, and no chunk of that run written afterwards.
    @Test func stopAdmittingCountsWhatWasWrittenAndRefusesTheRest() throws {
        let (sink, folder) = Self.makeSink()
        defer { try? FileManager.default.removeItem(at: folder) }
        sink.admit(3)
        #expect(try sink.write(Data("kept".utf8), of: 3) == 4)
        #expect(sink.stopAdmitting() == 4)
        #expect(try sink.write(Data("late".utf8), of: 3) == nil)
        #expect(sink.bytesKept == 4)
        sink.admit(4)
        #expect(try sink.write(Data("more".utf8), of: 4) == 8)
        _ = sink.discard()?.run()
    }

    @Test func anEmptyBodyIsCommittedAsAnEmptyFile() throws {
        let (sink, folder) = Self.makeSink()
        defer { try? FileManager.default.removeItem(at: folder) }
        sink.admit(1)
        try sink.prepare(expectedLength: 0)
        // Preparing opens nothing: the first chunk does, outside the operation's lock.
        #expect(Self.files(in: folder).isEmpty)
        try sink.commit()
        #expect(Self.files(in: folder) == ["body.bin"])
        #expect(try Data(contentsOf: folder.appendingPathComponent("body.bin")).isEmpty)
    }

    @Test func aMemorySinkHasNothingToCleanUp() throws {
        let sink = MemorySink()
        try sink.append(Data("abc".utf8))
        #expect(sink.reset() == nil)
        try sink.append(Data("d".utf8))
        #expect(sink.discard() == nil)
        #expect(sink.bytesKept == 0)
    }
}
