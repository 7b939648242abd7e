/// An operation with a state that can be suspended and resumed: plain operations and groups.
public protocol SuspendableOperation: AnyObject {
    /// Where the operation is in its life.
    var state: OperationState { get }
    /// Starts the operation (or, when suspended, resumes it).
    func start()
    /// Pauses a working operation; false when it was not working.
    @discardableResult func suspend() -> Bool
    /// Continues a suspended operation; false when it was not suspended.
    @discardableResult func resume() -> Bool
}

extension SuspendableOperation {
    /// One button for the whole life: starts a ready operation, suspends a working one, resumes
    /// a suspended one. Returns the state it leaves the operation in.
    @discardableResult
    public func startSuspendResume() -> OperationState {
        switch state {
        case .readyToStart: start()
        case .working: suspend()
        case .suspended: resume()
        case .successFinished, .failedFinished, .cancelled: break
        }
        return state
    }
}

extension BaseOperation: SuspendableOperation {}

extension GroupOperation: SuspendableOperation {}
