import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// What this operation's descriptions hide (`cURLDescription`, APILayer's request logs):
    /// `Redaction.standard` unless the operation's API adds names of its own.
    public var redaction: Redaction {
        get { withLock { redactionLocked } }
        set { updateSettings { settings in settings.redaction = newValue } }
    }

    /// A `curl` command that sends this operation's request again, with secrets replaced by
    /// `<redacted>` (see `redaction`).
    ///
    /// It shows the last request the operation sent — its credential, trace context and `Range`
    /// headers included — or, before the first, the request as built. A body streamed from a
    /// file appears as `--data-binary @file`.
    ///
    /// ```swift
    /// print(operation.cURLDescription)
    /// // curl -X GET 'http://127.0.0.1:8080/echo?access_token=<redacted>' -H 'Accept: application/json'
    /// ```
    public var cURLDescription: String { cURLDescription(redactingWith: redaction) }

    /// A `curl` command that sends this operation's request again, secrets replaced as
    /// `redaction` says; `nil` prints them as they are (for a terminal, never a log).
    public func cURLDescription(redactingWith redaction: Redaction?) -> String {
        let (sent, built, body) = withLock { (storage.lastSentRequest, try? storage.request.get(), storage.body) }
        guard let request = sent ?? built, let url = request.url else { return "curl # no request could be built" }
        return CURLCommand(request: request, url: url, body: body, redaction: redaction).text
    }
}

/// The text of a `curl` command for one request.
struct CURLCommand {
    let request: URLRequest
    let url: URL
    let body: TransferBody
    let redaction: Redaction?

    var text: String {
        var parts = ["curl", "-X", request.httpMethod ?? "GET", Self.quoted(redaction?.url(url) ?? url.absoluteString)]
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        for (name, value) in headers {
            parts += ["-H", Self.quoted("\(name): \(redaction?.header(name, value: value) ?? value)")]
        }
        let contentType = request.value(forHTTPHeaderField: "Content-Type")
        switch body {
        case let .data(data):
            parts += ["--data-binary", Self.quoted(bodyText(data, contentType: contentType))]
        case let .file(file):
            parts += ["--data-binary", Self.quoted("@" + file.path)]
        case .none:
            if let data = request.httpBody, !data.isEmpty {
                parts += ["--data-binary", Self.quoted(bodyText(data, contentType: contentType))]
            }
        }
        return parts.joined(separator: " ")
    }

    private func bodyText(_ data: Data, contentType: String?) -> String {
        if let redaction { return redaction.body(data, contentType: contentType) }
        return String(data: data, encoding: .utf8) ?? "<\(data.count) bytes>"
    }

    /// `text` in single quotes for a POSIX shell.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
