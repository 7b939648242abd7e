/// How far an operation's transfer has come, in both directions.
public struct TransferProgress: Sendable, Equatable {
    /// Request body bytes sent so far.
    public var bytesSent: Int64 = 0
    /// The request body's size, when known.
    public var totalBytesToSend: Int64?
    /// Response body bytes received so far (counting bytes kept across a suspension).
    public var bytesReceived: Int64 = 0
    /// The response body's size, when the server announced it.
    public var totalBytesToReceive: Int64?

    /// No bytes in either direction.
    public init() {}

    /// The fraction of the response received (or of the body sent while uploading), 0...1;
    /// nil while the total is unknown.
    public var fractionCompleted: Double? {
        if let total = totalBytesToReceive, total > 0 { return min(1, Double(bytesReceived) / Double(total)) }
        if let total = totalBytesToSend, total > 0, bytesReceived == 0 { return min(1, Double(bytesSent) / Double(total)) }
        return nil
    }
}
