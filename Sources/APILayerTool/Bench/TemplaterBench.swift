import ArgumentParser
import Foundation
import Templater
import Validator

/// `apilayer bench templater [--json]`: unpacking against Info-ZIP `unzip`, and cached lookups
/// against a plain dictionary under a lock, both measured in the same run.
struct TemplaterBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templater",
        abstract: "Unpack a 1 000-template archive vs unzip; cached template lookup vs a locked dictionary."
    )

    @Flag(name: .long, help: "Print the report as one JSON object.")
    var json = false

    @Option(name: .long, help: "Templates in the generated archive.")
    var templates = 1_000

    @Option(name: .long, help: "Runs of each unpack (the median is reported).")
    var runs = 7

    @Option(name: .long, help: "Lookups per lookup measurement.")
    var lookups = 1_000_000

    func run() throws {
        let work = FileManager.default.temporaryDirectory
            .appendingPathComponent("apilayer-bench-templater-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let source = work.appendingPathComponent("source")
        let names = try Self.writeTemplates(count: templates, into: source)
        let archive = work.appendingPathComponent("templates.zip")
        try ArchivePacker().pack(folder: source, to: archive)

        var notes = ["\(templates) templates, archive \(Self.fileSize(archive)) bytes, median of \(runs) runs"]
        var figures: [BenchFigure] = []

        // Interleaved, run by run, so a change in the machine's load hits both sides alike.
        let unzipPath = Self.executable(named: "unzip")
        var oursSamples: [Double] = []
        var unzipSamples: [Double] = []
        for run in 0..<max(runs, 1) {
            let store = TemplateStore(directory: work.appendingPathComponent("templater-\(run)"))
            oursSamples.append(try Self.seconds { try store.unarchiveDefaultTemplates(from: archive) })
            if let unzipPath {
                let target = work.appendingPathComponent("unzip-\(run)")
                unzipSamples.append(try Self.seconds { try Self.runUnzip(unzipPath, archive: archive, into: target) })
            }
        }
        let ours = Self.median(oursSamples)
        let baseline: Double? = unzipSamples.isEmpty ? nil : Self.median(unzipSamples)
        if baseline == nil { notes.append("unzip not found: no baseline for unpack-vs-unzip") }
        figures.append(BenchFigure(name: "unpack-vs-unzip", value: ours, baseline: baseline, unit: "s", target: "ratio <= 1.5"))

        let store = TemplateStore(directory: work.appendingPathComponent("templater-0"))
        var dictionary: [String: JSONValue] = [:]
        for name in names {
            dictionary[name] = try store.template(for: name)
        }
        let probe = names[names.count / 2]
        let lookupCount = lookups
        let cached =
            try Self.seconds {
                for _ in 0..<lookupCount { _ = try store.template(for: probe) }
            } / Double(lookupCount) * 1e9
        let lock = NSLock()
        var hits = 0
        let plain =
            Self.seconds {
                for _ in 0..<lookupCount {
                    lock.lock()
                    if dictionary[probe] != nil { hits += 1 }
                    lock.unlock()
                }
            } / Double(lookupCount) * 1e9
        notes.append("cached-lookup baseline: [String: JSONValue] under an NSLock (\(hits) hits)")
        figures.append(BenchFigure(name: "cached-lookup", value: cached, baseline: plain, unit: "ns", target: "value <= 1000"))

        BenchReport(suite: "templater", figures: figures, notes: notes).print(json: json)
    }

    /// Writes `count` SampleAPI-like templates (a users.get answer with rules, varied per method).
    static func writeTemplates(count: Int, into folder: URL) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try (0..<count).map { index in
            let name = "method\(index).get"
            let user: JSONValue = .object([
                "id": .int(index + 1),
                "id-Rules": .object(["minimum": .int(1)]),
                "first_name": .string("First\(index)"),
                "first_name-Rules": .object(["lengthMustBeEqualOrGreaterThan": .int(1)]),
                "last_name": .string("Last\(index)"),
                "photo_100": .string("https://example.com/photos/\(index)_100.jpg"),
                "photo_100-Rules": .object(["isOptional": .bool(true), "hasSuffix": .string(".jpg")]),
                "city": .object(["id": .int(index % 50), "title": .string("City \(index % 50)")]),
                "online": .int(index % 2),
                "online-Rules": .object(["minimum": .int(0), "maximum": .int(1)]),
            ])
            let template: JSONValue = .object(["response": .array([user])])
            try template.serialized(pretty: true).write(to: folder.appendingPathComponent(name + ".json"))
            return name
        }
    }

    static func runUnzip(_ path: String, archive: URL, into folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-q", "-o", archive.path, "-d", folder.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ExitCode(1) }
    }

    static func executable(named name: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let elapsed = try clock.measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        return sorted[sorted.count / 2]
    }

    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
