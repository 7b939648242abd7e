/// Receives an operation's events: the same information the closures carry.
///
/// Every method has a default that does nothing; implement what you need. Methods are called
/// on an internal thread, never while the operation holds its lock, so calling back into the
/// operation is safe.
public protocol NetworkOperationDelegate: AnyObject, Sendable {
    /// The operation moved to `state`.
    func operation(_ operation: BaseOperation, didChangeStateTo state: OperationState)
    /// Bytes moved; `progress` is the operation's progress after the move.
    func operation(_ operation: BaseOperation, didUpdate progress: TransferProgress)
    /// The operation reached a final state (after its completion closures ran).
    func operationDidFinish(_ operation: BaseOperation)
}

extension NetworkOperationDelegate {
    /// Does nothing.
    public func operation(_ operation: BaseOperation, didChangeStateTo state: OperationState) {}
    /// Does nothing.
    public func operation(_ operation: BaseOperation, didUpdate progress: TransferProgress) {}
    /// Does nothing.
    public func operationDidFinish(_ operation: BaseOperation) {}
}
