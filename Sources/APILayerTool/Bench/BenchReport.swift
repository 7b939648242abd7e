import Foundation

/// One measured figure of a benchmark suite, with the baseline it is compared against.
struct BenchFigure: Codable, Sendable {
    /// The stable name tools outside the project read, e.g. `get-c8-throughput`.
    var name: String
    /// What APILayer measured.
    var value: Double
    /// What the baseline measured in the same run, when there is one.
    var baseline: Double?
    /// The figure's ratio as the suite defines it (usually value / baseline).
    var ratio: Double?
    /// The unit of `value` and `baseline`.
    var unit: String
    /// A target the figure should meet, printed beside it (e.g. `>= 0.95`).
    var target: String?

    init(name: String, value: Double, baseline: Double? = nil, ratio: Double? = nil, unit: String, target: String? = nil) {
        self.name = name
        self.value = value
        self.baseline = baseline
        self.ratio = ratio ?? baseline.flatMap { $0 == 0 ? nil : value / $0 }
        self.unit = unit
        self.target = target
    }

    private enum CodingKeys: String, CodingKey {
        case name, value, baseline, ratio, unit
    }
}

/// The result of one benchmark suite: printed as a table, or as one JSON object with `--json`.
struct BenchReport: Codable, Sendable {
    /// The suite's name, e.g. `netops`.
    var suite: String
    /// The figures, in the order they were measured.
    var figures: [BenchFigure]
    /// Free-form lines printed under the table (not part of the JSON).
    var notes: [String] = []

    private enum CodingKeys: String, CodingKey {
        case suite, figures
    }

    /// Prints the report to standard output, as JSON when `json` is set.
    func print(json: Bool) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        Swift.print(table())
    }

    /// The report as an aligned plain-text table.
    func table() -> String {
        let header = ["figure", "value", "baseline", "ratio", "unit", "target"]
        var rows = [header]
        for figure in figures {
            rows.append([
                figure.name,
                Self.format(figure.value),
                figure.baseline.map(Self.format) ?? "-",
                figure.ratio.map { String(format: "%.3f", $0) } ?? "-",
                figure.unit,
                figure.target ?? "",
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = ["suite: \(suite)"]
        for (index, row) in rows.enumerated() {
            let cells = row.enumerated().map { column, cell in
                cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            lines.append(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            if index == 0 {
                lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
            }
        }
        lines.append(contentsOf: notes)
        return lines.joined(separator: "\n")
    }

    private static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e12 { return String(Int(number)) }
        return String(format: abs(number) >= 100 ? "%.1f" : "%.4g", number)
    }
}
