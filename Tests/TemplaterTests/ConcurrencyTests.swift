import Foundation
import TestSupport
import Testing
import Validator

@testable import Templater

struct ConcurrencyTests {
    /// Runs `body` repeatedly until `stop` says so.
    static func loop(until stop: Shared<Bool>, _ body: () -> Void) {
        while !stop.withLock({ $0 }) { body() }
    }

    static func version(of template: JSONValue?) -> Int? {
        guard case let .object(root)? = template, case let .object(response)? = root["response"],
            case let .int(version)? = response["version"]
        else { return nil }
        return version
    }

    @Test func sixteenReadersAndAWriterForASecond() throws {
        try withTemporaryFolder { folder in
            let store = TemplateStore(directory: folder)
            let names = (0..<8).map { "stable\($0).get" }
            for (index, name) in names.enumerated() { try store.write(sampleTemplate(index), for: name) }
            try store.write(sampleTemplate(0), for: "hot.get")
            let stop = Shared(false)
            let problems = Shared<[String]>([])
            let reads = Shared(0)
            let lastWritten = Shared(0)

            let writer: @Sendable () -> Void = {
                let end = ContinuousClock.now + .seconds(1)
                var version = 0
                while ContinuousClock.now < end {
                    version += 1
                    do {
                        try store.write(sampleTemplate(version), for: "hot.get")
                        if version % 10 == 0 {
                            try store.remove(for: "stable0.get")
                            try store.write(sampleTemplate(0), for: "stable0.get")
                        }
                        if version % 7 == 0 { store.purgeCache() }
                    } catch {
                        problems.withLock { $0.append("write: \(error)") }
                    }
                }
                lastWritten.withLock { $0 = version }
                stop.withLock { $0 = true }
            }
            let readers: [@Sendable () -> Void] = (0..<16).map { reader in
                {
                    var lastSeen = 0
                    var count = 0
                    Self.loop(until: stop) {
                        do {
                            guard let hot = Self.version(of: try store.template(for: "hot.get")) else {
                                problems.withLock { $0.append("reader \(reader): hot.get missing or malformed") }
                                return
                            }
                            if hot < lastSeen { problems.withLock { $0.append("reader \(reader): went back from \(lastSeen) to \(hot)") } }
                            lastSeen = hot
                            let index = count % names.count
                            let stable = try store.template(for: names[index])
                            if index != 0, Self.version(of: stable) != index {
                                problems.withLock { $0.append("reader \(reader): \(names[index]) read \(String(describing: stable))") }
                            }
                        } catch {
                            problems.withLock { $0.append("reader \(reader): \(error)") }
                        }
                        count += 1
                    }
                    reads.withLock { $0 += count }
                }
            }
            runOnThreads([writer] + readers)
            #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(5) })")
            #expect(reads.withLock { $0 } > 0)
            #expect(Self.version(of: try store.template(for: "hot.get")) == lastWritten.withLock { $0 })
        }
    }

    @Test(arguments: [false, true])
    func movingTheFolderWhileReading(forceCopy: Bool) throws {
        try withTemporaryFolder { work in
            let store = TemplateStore(
                directory: work.appendingPathComponent("a"), limits: .default,
                mover: DirectoryMover(forceCopy: forceCopy))
            let names = (0..<8).map { "m\($0).get" }
            for (index, name) in names.enumerated() { try store.write(sampleTemplate(index), for: name) }
            let stop = Shared(false)
            let problems = Shared<[String]>([])
            let mover: @Sendable () -> Void = {
                for step in 1...12 {
                    do {
                        try store.setNewPathToTemplateDirectory(work.appendingPathComponent("hop\(step)/templates"))
                        store.purgeCache()
                    } catch {
                        problems.withLock { $0.append("move \(step): \(error)") }
                    }
                }
                stop.withLock { $0 = true }
            }
            let readers: [@Sendable () -> Void] = (0..<8).map { reader in
                {
                    var count = 0
                    Self.loop(until: stop) {
                        let index = count % names.count
                        do {
                            if Self.version(of: try store.template(for: names[index])) != index {
                                problems.withLock { $0.append("reader \(reader): \(names[index]) missing") }
                            }
                        } catch {
                            problems.withLock { $0.append("reader \(reader): \(error)") }
                        }
                        count += 1
                    }
                }
            }
            runOnThreads([mover] + readers)
            #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(5) })")
            #expect(store.directory.path == work.appendingPathComponent("hop12/templates").path)
            #expect(listing(work.appendingPathComponent("hop12/templates")) == names.map { $0 + ".json" }.sorted())
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("a").path))
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("hop11/templates").path))
        }
    }

    @Test(.requires(.zip)) func unpackingWhileReading() async throws {
        try await withTemporaryFolderAsync { work in
            let store = TemplateStore(directory: work.appendingPathComponent("t"))
            var made: [URL] = []
            for version in 0..<2 {
                let archive = work.appendingPathComponent("v\(version).zip")
                try await IdempotentUnarchiveTests.makeArchive(
                    ["x.get.json": #"{"response": {"version": \#(version)}}"#], at: archive)
                made.append(archive)
            }
            let archives = made
            try store.unarchiveDefaultTemplates(from: archives[0])
            let stop = Shared(false)
            let problems = Shared<[String]>([])
            let unpacker: @Sendable () -> Void = {
                for step in 1...10 {
                    do { try store.unarchiveDefaultTemplates(from: archives[step % 2]) } catch {
                        problems.withLock { $0.append("unpack: \(error)") }
                    }
                }
                stop.withLock { $0 = true }
            }
            let readers: [@Sendable () -> Void] = (0..<8).map { _ in
                {
                    Self.loop(until: stop) {
                        do {
                            if Self.version(of: try store.template(for: "x.get")) == nil {
                                problems.withLock { $0.append("x.get missing") }
                            }
                        } catch {
                            problems.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            runOnThreads([unpacker] + readers)
            #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(5) })")
        }
    }
}
