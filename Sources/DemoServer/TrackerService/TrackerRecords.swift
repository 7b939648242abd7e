import Foundation

/// A user as TrackerService answers it.
struct TrackerUserRecord: Codable, Sendable {
    var login: String
    var id: Int
    var name: String?
}

/// A label as TrackerService answers it.
struct TrackerLabelRecord: Codable, Sendable {
    var name: String
    var color: String
}

/// An issue as TrackerService keeps and answers it (snake_case keys, ISO-8601 dates, nulls).
struct TrackerIssueRecord: Codable, Sendable {
    var id: Int
    var number: Int
    var title: String
    var body: String?
    var state: String
    var labels: [TrackerLabelRecord]
    var user: TrackerUserRecord
    var comments: Int
    var createdAt: Date
    var closedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, number, title, body, state, labels, user, comments
        case createdAt = "created_at"
        case closedAt = "closed_at"
    }

    /// Encodes `body` and `closed_at` as `null` when absent, as REST APIs do; leaves them out
    /// under `TrackerJSON.omitsNulls` (`TrackerService.AnswerVersion.next`).
    func encode(to encoder: any Encoder) throws {
        if encoder.userInfo[TrackerJSON.omitsNulls] as? Bool == true {
            try encodeOmittingNulls(to: encoder)
            return
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(number, forKey: .number)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(state, forKey: .state)
        try container.encode(labels, forKey: .labels)
        try container.encode(user, forKey: .user)
        try container.encode(comments, forKey: .comments)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(closedAt, forKey: .closedAt)
    }
}

extension TrackerIssueRecord {
    private func encodeOmittingNulls(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(number, forKey: .number)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encode(state, forKey: .state)
        try container.encode(labels, forKey: .labels)
        try container.encode(user, forKey: .user)
        try container.encode(comments, forKey: .comments)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(closedAt, forKey: .closedAt)
    }
}

/// TrackerService's JSON: ISO-8601 dates in UTC (`2026-01-15T09:30:00Z`), sorted keys.
enum TrackerJSON {
    /// The `userInfo` key under which `true` makes issues leave out their `null` members.
    static let omitsNulls = CodingUserInfoKey(rawValue: "omitsNulls")!

    static func encode(_ value: some Encodable, omittingNulls: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        if omittingNulls { encoder.userInfo[omitsNulls] = true }
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// `{"message": …, "documentation_url": …}` with optional field errors.
    static func error(_ message: String, fields: [(resource: String, field: String, code: String)] = []) -> String {
        let documentation = "https://docs.tracker.example/rest"
        let escaped = message.replacingOccurrences(of: "\"", with: "\\\"")
        guard !fields.isEmpty else {
            return #"{"message":"\#(escaped)","documentation_url":"\#(documentation)"}"#
        }
        let errors = fields.map { #"{"resource":"\#($0.resource)","field":"\#($0.field)","code":"\#($0.code)"}"# }
        return #"{"message":"\#(escaped)","errors":[\#(errors.joined(separator: ","))],"documentation_url":"\#(documentation)"}"#
    }
}
