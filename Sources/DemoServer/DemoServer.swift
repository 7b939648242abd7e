import Hummingbird
/// The embedded HTTP server.
public enum DemoServerPlaceholder {}
