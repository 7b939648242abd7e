/// How far a group has come: its sub-operations, and the bytes they moved.
///
/// The sub-operations are the group's direct members — every operation its body started, a
/// nested group counting as one — and the bytes are those of every operation inside it, nested
/// groups included. A body starts its operations as it goes, so `totalOperations` grows while
/// the group works: it counts the sub-operations started so far.
public struct GroupProgress: Sendable, Equatable {
    /// Sub-operations that reached a final state (succeeded, failed or cancelled).
    public var completedOperations = 0
    /// Sub-operations started so far.
    public var totalOperations = 0
    /// Request body bytes the sub-operations sent.
    public var bytesSent: Int64 = 0
    /// The sum of the request body sizes the sub-operations know; nil while none knows one.
    public var totalBytesToSend: Int64?
    /// Response body bytes the sub-operations received.
    public var bytesReceived: Int64 = 0
    /// The sum of the response sizes the servers announced; nil while none did.
    public var totalBytesToReceive: Int64?

    /// No sub-operation yet.
    public init() {}

    /// `completedOperations / totalOperations`, 0...1; 0 before the first sub-operation.
    public var fractionCompleted: Double {
        totalOperations == 0 ? 0 : Double(completedOperations) / Double(totalOperations)
    }

    /// The bytes, as one transfer's progress: what a parent group adds up for a nested group.
    var bytes: TransferProgress {
        var bytes = TransferProgress()
        bytes.bytesSent = bytesSent
        bytes.totalBytesToSend = totalBytesToSend
        bytes.bytesReceived = bytesReceived
        bytes.totalBytesToReceive = totalBytesToReceive
        return bytes
    }
}

extension GroupProgress {
    /// The progress of members that started `started` and ended `completed`, which moved `bytes`.
    init(started: Int, completed: Int, bytes: TransferProgress) {
        totalOperations = started
        completedOperations = completed
        bytesSent = bytes.bytesSent
        totalBytesToSend = bytes.totalBytesToSend
        bytesReceived = bytes.bytesReceived
        totalBytesToReceive = bytes.totalBytesToReceive
    }
}

extension TransferProgress {
    /// Both transfers' bytes added up; a total is known when either one's is.
    func adding(_ other: TransferProgress) -> TransferProgress {
        func sum(_ first: Int64?, _ second: Int64?) -> Int64? {
            first == nil && second == nil ? nil : (first ?? 0) + (second ?? 0)
        }
        var total = TransferProgress()
        total.bytesSent = bytesSent + other.bytesSent
        total.totalBytesToSend = sum(totalBytesToSend, other.totalBytesToSend)
        total.bytesReceived = bytesReceived + other.bytesReceived
        total.totalBytesToReceive = sum(totalBytesToReceive, other.totalBytesToReceive)
        return total
    }
}
