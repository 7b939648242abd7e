/// How an engine learns that the reader of a streamed body can take more.
///
/// After it delivered a chunk, an engine that can slow the connection down (the NIO engine)
/// asks `whenReady` before it reads on: the socket is not read faster than the reader takes.
/// An engine that cannot (URLSession) asks before it sends the next `Range` segment.
package protocol BodyDemand: AnyObject, Sendable {
    /// True when the reader can take more now; otherwise false, and `resume` is called once
    /// when it can, or when the stream ended or its reader left. A later call replaces an
    /// earlier waiting `resume`, which is then called at once.
    func whenReady(_ resume: @escaping @Sendable () -> Void) -> Bool
}
