import NIOConcurrencyHelpers

extension NIOLockedValueBox {
    /// Runs `body` with exclusive access to the value, as `withLockedValue` does, for a body that
    /// throws one type of error: the caller gets that type back, not `any Error`.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try withLockedValue { value in Swift.Result { () throws(Failure) -> Result in try body(&value) } }.get()
    }
}
