/// One step of a path being walked: cheap to push and pop, rendered only when an error is reported.
///
/// The template compiler and the validator's walk keep their paths as these, and render one as a
/// JSON Pointer (`pointer(_:)`) only for an error.
package enum PathComponent: Sendable, Hashable {
    /// An object key, unescaped.
    case key(String)
    /// An array index.
    case index(Int)

    /// Renders a walked path as a JSON Pointer string.
    package static func pointer(_ path: [PathComponent]) -> String {
        var text = ""
        for component in path {
            text.append("/")
            switch component {
            case .key(let key): text.append(JSONPointer.escape(key))
            case .index(let position): text.append(String(position))
            }
        }
        return text
    }
}
