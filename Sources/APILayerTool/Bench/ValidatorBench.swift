import ArgumentParser
import Foundation
import Mapper
import Validator

/// `apilayer bench validator`: parsing and validating a ~1 MB response, against our own parse time.
///
/// Figures: `validate-vs-parse` (validation seconds against parse seconds of the same bytes with
/// our parser; target ≤ 0.5), `validate-throughput` (MB of response validated per second),
/// `parse-throughput` (MB parsed into `JSONValue` per second; target ≥ 300),
/// `parse-vs-jsondecoder` (our parse time against `JSONDecoder` decoding the same bytes into
/// `BenchPage`, a Codable model of every field) and `validate-cold-vs-parse` (validation of a
/// value parsed long before, whose memory other work has evicted from the caches). Foundation's
/// `JSONSerialization` parse time, and mapping the parsed value with Mapper against
/// `JSONDecoder` on the bytes, are printed in the notes.
///
/// Each round runs the work in the pipeline's order: parse the bytes, validate that value, drop
/// it. A parse's time is the parse and the drop of its value (a response's value is dropped once
/// the call is done); validation is timed on the value the round just parsed, as an API call
/// validates the value it has just parsed.
struct ValidatorBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validator",
        abstract: "Measure JSON parsing and template validation on a ~1 MB response."
    )

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: "Number of user objects in the generated response.")
    var users = 2_000

    @Option(help: "Measured repetitions (after 3 warm-up runs); the median is reported.")
    var repetitions = 31

    func run() throws {
        let bytes = Self.response(users: users).serialized()
        let template = try Template(JSONValue(parsing: Data(Self.template.utf8)))

        // Check once that the work measured is the work intended.
        let parsed = try JSONValue(parsing: bytes)
        let errors = Validator.validate(parsed, against: template)
        guard errors.isEmpty else {
            throw ArgumentParser.ValidationError("the benchmark response does not satisfy its template: \(errors.prefix(3).map(\.description))")
        }

        // The measurements are interleaved run by run, so that load from other processes on the
        // machine falls on all of them alike.
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        let full = try decoder.decode(BenchPage.self, from: bytes)
        guard try Mapper.map(BenchPage.self, from: parsed) == full else {
            throw ArgumentParser.ValidationError("Mapper and JSONDecoder decode the benchmark response differently")
        }
        var fresh = JSONValue.null
        let medians = try Self.medians(
            repetitions,
            [
                { fresh = try JSONValue(parsing: bytes) },
                { guard Validator.validate(fresh, against: template).isEmpty else { throw ExitCode.failure } },
                { fresh = .null },
                { guard Validator.validate(parsed, against: template).isEmpty else { throw ExitCode.failure } },
                { _ = try JSONSerialization.jsonObject(with: bytes) },
                { _ = try decoder.decode(BenchPage.self, from: bytes) },
                { _ = try Mapper.map(BenchPage.self, from: parsed) },
                { _ = try decoder.decode(BenchPage.Sparse.self, from: bytes) },
                { _ = try Mapper.map(BenchPage.Sparse.self, from: parsed) },
            ])
        let (parse, validate, drop, validateCold) = (medians[0] + medians[2], medians[1], medians[2], medians[3])
        let (foundation, jsonDecoder, mapFull, jsonDecoderSparse, mapSparse) = (medians[4], medians[5], medians[6], medians[7], medians[8])
        let megabytes = Double(bytes.count) / 1_000_000

        let report = BenchReport(
            suite: "validator",
            figures: [
                BenchFigure(name: "validate-vs-parse", value: validate, baseline: parse, unit: "s", target: "<= 0.5"),
                BenchFigure(name: "validate-throughput", value: megabytes / validate, unit: "MB/s"),
                BenchFigure(name: "parse-throughput", value: megabytes / parse, unit: "MB/s", target: ">= 300"),
                BenchFigure(name: "parse-vs-jsondecoder", value: parse, baseline: jsonDecoder, unit: "s"),
                BenchFigure(name: "validate-cold-vs-parse", value: validateCold, baseline: parse, unit: "s"),
            ],
            notes: [
                String(format: "response: %d users, %.2f MB; median of %d runs after 3 warm-up runs", users, megabytes, repetitions),
                String(
                    format: "parse (JSONValue): %.2f ms = %.0f MB/s, of which dropping the value %.2f ms; validate the value just parsed: %.2f ms",
                    parse * 1000, megabytes / parse, drop * 1000, validate * 1000),
                String(format: "validate a value parsed before the measured runs (cold caches): %.2f ms", validateCold * 1000),
                String(
                    format: "Foundation JSONSerialization parse of the same bytes: %.2f ms (%.2fx our parse time)", foundation * 1000,
                    foundation / parse),
                String(
                    format: "JSONDecoder into the full model: %.2f ms; Mapper from the parsed value: %.2f ms (parse + map = %.2fx JSONDecoder)",
                    jsonDecoder * 1000, mapFull * 1000, (parse + mapFull) / jsonDecoder),
                String(
                    format:
                        "sparse model (id, name, city of each user): JSONDecoder from the bytes %.2f ms; Mapper from the parsed value %.3f ms (%.0fx faster)",
                    jsonDecoderSparse * 1000, mapSparse * 1000, jsonDecoderSparse / mapSparse),
            ]
        )
        report.print(json: json)
    }

    /// The median wall-clock seconds of each body over `count` interleaved runs, after 3 unmeasured runs.
    static func medians(_ count: Int, _ bodies: [() throws -> Void]) throws -> [Double] {
        for _ in 0..<3 {
            for body in bodies { try body() }
        }
        var samples = Array(repeating: [Double](), count: bodies.count)
        for _ in 0..<max(1, count) {
            for (index, body) in bodies.enumerated() {
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                samples[index].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        return samples.map { runs in runs.sorted()[runs.count / 2] }
    }

    /// A users.get-like response: `users` objects with nested objects, arrays and every JSON type.
    static func response(users: Int) -> JSONValue {
        let cities = ["Oslo", "Lisbon", "Kyoto", "São Paulo", "Zürich", "Nairobi", "Montréal"]
        let statuses = ["online", "offline", "away"]
        var items: [JSONValue] = []
        items.reserveCapacity(users)
        for index in 0..<users {
            var photos: [JSONValue] = []
            for photo in 0..<(index % 4 + 1) {
                photos.append(
                    .object([
                        "id": .int(index * 10 + photo),
                        "url": .string("https://cdn.example.com/photos/\(index)/\(photo).jpg"),
                        "width": .int(640 + photo * 10), "height": .int(480),
                        "likes": .int((index * 7 + photo) % 1000),
                    ]))
            }
            var user: [String: JSONValue] = [
                "id": .int(index + 1),
                "first_name": .string("Name\(index % 97)"),
                "last_name": .string("Surname-\(index % 89)é"),
                "email": .string("user\(index)@example.com"),
                "sex": .int(index % 2 + 1),
                "verified": .bool(index.isMultiple(of: 3)),
                "rating": .double(Double(index % 500) / 100),
                "status": .string(statuses[index % statuses.count]),
                "city": .object(["id": .int(index % cities.count), "title": .string(cities[index % cities.count])]),
                "counters": .object([
                    "friends": .int(index % 500), "followers": .int(index * 3 % 10_000),
                    "photos": .int(photos.count), "videos": .int(index % 12),
                ]),
                "last_seen": .object(["time": .int(1_700_000_000 + index), "platform": .int(index % 7 + 1)]),
                "photos": .array(photos),
                "tags": .array((0..<(index % 3 + 1)).map { .string("tag\($0)") }),
                "about": index.isMultiple(of: 5) ? .null : .string("Likes hiking, chess and Swift on Linux."),
            ]
            if index.isMultiple(of: 2) { user["nickname"] = .string("nick\(index)") }
            items.append(.object(user))
        }
        return .object(["response": .object(["count": .int(users), "items": .array(items)])])
    }

    /// The template of `response(users:)`, with rules on most fields.
    static let template = #"""
        {"response": {
          "count": 1, "count-Rules": {"minimum": 0},
          "items": [{
            "id": 1, "id-Rules": {"minimum": 1},
            "first_name": "Ann", "first_name-Rules": {"lengthMustBeEqualOrGreaterThan": 1, "lengthMustBeEqualOrLessThan": 64},
            "last_name": "Lee", "last_name-Rules": {"lengthMustBeEqualOrGreaterThan": 1, "lengthMustBeEqualOrLessThan": 64},
            "email": "ann@example.com", "email-Rules": {"hasSuffix": "@example.com", "lengthMustBeEqualOrLessThan": 254},
            "sex": 1, "sex-Rules": {"minimum": 0, "maximum": 2},
            "verified": false,
            "rating": 0.5, "rating-Rules": {"minimum": 0, "maximum": 5},
            "status": "online", "status-Rules": {"matchWithOneOf": ["online", "offline", "away"]},
            "nickname": "ann", "nickname-Rules": {"isOptional": true, "lengthMustBeEqualOrLessThan": 32},
            "about": null, "about-Rules": {"isOptional": true},
            "city": {"id": 1, "id-Rules": {"minimum": 0}, "title": "Oslo", "title-Rules": {"lengthMustBeEqualOrGreaterThan": 1}},
            "counters": {"friends": 0, "friends-Rules": {"minimum": 0}, "followers": 0, "followers-Rules": {"minimum": 0},
                         "photos": 0, "photos-Rules": {"minimum": 0}, "videos": 0, "videos-Rules": {"minimum": 0}},
            "last_seen": {"time": 1700000000, "time-Rules": {"minimum": 0}, "platform": 1, "platform-Rules": {"minimum": 1, "maximum": 7}},
            "photos": [{"id": 1, "id-Rules": {"minimum": 0}, "url": "https://cdn.example.com/p.jpg", "url-Rules": {"hasSuffix": ".jpg"},
                        "width": 1, "width-Rules": {"minimum": 1}, "height": 1, "height-Rules": {"minimum": 1},
                        "likes": 0, "likes-Rules": {"minimum": 0}}],
            "photos-Rules": {"elementsMustBeEqualOrLessThan": 100},
            "tags": ["swift"], "tags-Rules": {"elementsMustBeEqualOrMoreThan": 1, "elementsMustBeEqualOrLessThan": 10}
          }],
          "items-Rules": {"elementsMustBeEqualOrMoreThan": 1}
        }}
        """#
}
