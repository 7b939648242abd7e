import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BaseOperation {
    /// The response head (of the full response, also after a ranged resumption).
    public var response: HTTPURLResponse? { withLock { storage.response }?.httpURLResponse }

    /// The response head as the engine delivered it (no `HTTPURLResponse` is made for it).
    package var responseHead: ResponseHead? { withLock { storage.response } }

    /// The response's HTTP status, once it arrived.
    public var statusCode: Int? { withLock { storage.response }?.statusCode }

    /// The response's headers, names as the server sent them.
    public var responseHeaders: [String: String] {
        withLock { storage.response }?.headerFields ?? [:]
    }

    /// Why the operation failed or was cancelled; nil while working and after success.
    public var error: NetOpsError? {
        withLock {
            guard let failure = machine.failure else { return nil }
            // Described with the operation's redaction when it hides path segments (the standard
            // one does not know them).
            let redaction = redactionLocked
            return redaction.hidesPathSecrets ? failure.describing(with: redaction.bound(to: currentURL)) : failure
        }
    }

    /// The request as last sent, after the stages of its chain prepared it (credentials
    /// included, so redact before logging it: `cURLDescription` does); nil before the first
    /// transfer. For diagnostics: what the engine was actually handed.
    public var sentRequest: URLRequest? { withLock { storage.lastSentRequest } }

    /// Bytes sent and received so far.
    public var progress: TransferProgress { withLock { storage.progress } }

    /// The response body held in memory. A `DownloadOperation` writes its body to a file and
    /// holds only the body of an answer with a status it does not accept (its first MiB), which
    /// says why the download failed; otherwise this is empty for it. A `StreamingOperation`
    /// hands its body to its reader and holds, the same way, only an unaccepted answer's.
    public var receivedData: Data {
        withLock { sink.bodyInMemory }
    }

    /// The response body parsed as JSON with `JSONSerialization` (nil when it is not JSON),
    /// parsed on first access and kept.
    ///
    /// On Linux `JSONSerialization` cannot tell `true` from `1`; APILayer's own JSON type can.
    public var json: Any? {
        if let parsed = withLock({ storage.parsedJSON }) { return parsed.value }
        let data = receivedData
        let value = data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        withLock { storage.parsedJSON = ParsedJSON(value) }
        return value
    }

    /// Decodes the response body as JSON into `type`.
    ///
    /// - Throws: `DecodingError` when the body does not decode.
    public func decode<Model: Decodable>(_ type: Model.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> Model {
        try decoder.decode(type, from: receivedData)
    }

    /// How often a suspended transfer resumed with a `Range` request, and how often it had to
    /// start over (server without Range support, or a changed resource).
    package var resumptionCounts: (ranged: Int, restarted: Int) {
        withLock { (storage.history.rangeResumes, storage.history.restartsFromZero) }
    }
}
