import APILayer
import Foundation

/// A user of TrackerService.
public struct TrackerUser: Codable, Sendable, Equatable {
    /// The login name.
    public var login: String
    /// The user's id.
    public var id: Int
    /// The display name, when the user gave one.
    public var name: String?

    /// A user.
    public init(login: String, id: Int, name: String? = nil) {
        self.login = login
        self.id = id
        self.name = name
    }
}

/// A label on an issue.
public struct IssueLabel: Codable, Sendable, Equatable {
    /// The label's text.
    public var name: String
    /// Its colour, six hex digits.
    public var color: String
}

/// An issue of a TrackerService repository.
public struct Issue: Codable, Sendable, Equatable {
    /// The issue's id across the service.
    public var id: Int
    /// Its number within the repository.
    public var number: Int
    /// The title.
    public var title: String
    /// The text, if any.
    public var body: String?
    /// `open` or `closed`.
    public var state: String
    /// Its labels.
    public var labels: [IssueLabel]
    /// Who opened it.
    public var user: TrackerUser
    /// How many comments it has.
    public var comments: Int
    /// When it was opened.
    public var createdAt: Date
    /// When it was closed, if it is.
    public var closedAt: Date?
}

/// TrackerService's error body: `{"message": "Validation Failed", "errors": [...], "documentation_url": …}`.
public struct TrackerError: APIErrorModel, Equatable {
    /// One field the server refused.
    public struct FieldError: Codable, Sendable, Equatable {
        /// The kind of object (`Issue`).
        public var resource: String?
        /// The field.
        public var field: String?
        /// What is wrong (`missing_field`).
        public var code: String?

        /// A field error.
        public init(resource: String?, field: String?, code: String?) {
            self.resource = resource
            self.field = field
            self.code = code
        }
    }

    /// The message, e.g. `Not Found` or `Bad credentials`.
    public var message: String
    /// Where the service documents the error.
    public var documentationURL: String?
    /// The fields refused, for a 422.
    public var errors: [FieldError]?

    enum CodingKeys: String, CodingKey {
        case message
        case documentationURL = "documentationUrl"
        case errors
    }

    /// The message, then the refused fields.
    public var description: String {
        let fields = (errors ?? []).compactMap { error in error.field.map { "\($0) \(error.code ?? "invalid")" } }
        return fields.isEmpty ? message : "\(message) (\(fields.joined(separator: ", ")))"
    }
}
