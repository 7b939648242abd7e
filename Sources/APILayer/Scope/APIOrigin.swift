import NetOps

/// An API's origin: the one `Origin` type of NetOps, under the name APILayer gave it first.
@available(*, deprecated, renamed: "Origin")
public typealias APIOrigin = Origin
