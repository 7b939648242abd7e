import Logging
import NetOps

/// Whether a method's calls need its template to exist.
///
/// A missing template is a deployment error (the templates were not shipped, or a name is
/// misspelt), so every call of a method whose template is missing fails by default, at stage
/// `templateMissing`. A method that opts into `.ifTemplateExists` is validated when its template
/// is there and passes unvalidated when it is not, as the reference's validator does. Either
/// way the first call that finds the template missing or invalid logs it once, at `warning`,
/// on the API's logger; an invalid template fails the calls under both requirements.
public enum TemplateRequirement: Sendable, Equatable {
    /// Calls fail while the template is missing (the default).
    case required
    /// Calls are validated when the template exists, and pass unvalidated when it does not.
    case ifTemplateExists
}

/// The templates an API already warned about, so each missing or invalid one is logged once
/// per API scope, however many calls find it.
final class TemplateWarnings: Sendable {
    private let warned = Locked<Set<String>>([])

    /// Logs `message` at `warning` on `logger` the first time `template` is reported.
    func warnOnce(about template: String, _ message: @autoclosure () -> String, logger: Logger) {
        let first = warned.withLock { $0.insert(template).inserted }
        guard first else { return }
        logger.warning("\(message())", metadata: ["apilayer.template": "\(template)"])
    }

    /// Logs `message` at `warning` on `logger` the first time `topic` (something of the API
    /// other than a template, such as its stub mode) is reported.
    func warnOnce(topic: String, _ message: @autoclosure () -> String, logger: Logger) {
        // ":" starts no template name: a topic never hides a template's warning.
        let first = warned.withLock { $0.insert(":" + topic).inserted }
        guard first else { return }
        logger.warning("\(message())")
    }
}
