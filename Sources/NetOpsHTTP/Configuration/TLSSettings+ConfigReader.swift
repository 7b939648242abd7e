import Configuration
import Foundation
import NetOps

@available(macOS 15, iOS 18, watchOS 11, tvOS 18, visionOS 2, *)
extension TLSSettings {
    /// Settings read from `configReader` (scoped to their section, e.g. `tracker.tls`), the files
    /// read and checked as `init(trustRoots:clientCertificate:clientKey:minimumVersion:)` does.
    ///
    /// ## Configuration keys
    /// - `trustRootsFile` (string, optional): a PEM file of certificate authorities to trust.
    /// - `trustsSystemRoots` (bool, default true): whether the system's roots are trusted too;
    ///   false trusts only `trustRootsFile`, which it then requires.
    /// - `clientCertificateFile`, `clientKeyFile` (string, optional): a PEM client certificate
    ///   chain and its unencrypted private key, for mutual TLS; each requires the other.
    /// - `minimumVersion` (string, default `tls12`): `tls10`, `tls11`, `tls12` or `tls13`.
    /// - `insecureWithoutVerification` (bool, default false): verify neither chain nor host name
    ///   (test servers only); no file may be given with it.
    ///
    /// With none of these keys: `TLSSettings.standard`.
    ///
    /// - Throws: `ConfigurationError` naming the key whose value is wrong or whose file cannot be
    ///   used (the `TLSSettingsError` text: the file's path, never its content).
    public init(configReader: ConfigReader) throws {
        self = try Self.read(ConfigSettingsReader(configReader)) ?? .standard
    }

    /// The settings the section's keys give; nil when it has none of them.
    package static func read(_ section: ConfigSettingsReader) throws -> TLSSettings? {
        let trustRootsFile = try section.string("trustRootsFile")
        let trustsSystemRoots = try section.bool("trustsSystemRoots")
        let certificateFile = try section.string("clientCertificateFile")
        let keyFile = try section.string("clientKeyFile")
        let minimumVersion = try section.choice(
            "minimumVersion", ["tls10": Version.tls10, "tls11": Version.tls11, "tls12": Version.tls12, "tls13": Version.tls13])
        let insecure = try section.bool("insecureWithoutVerification")
        let given: [Any?] = [trustRootsFile, trustsSystemRoots, certificateFile, keyFile, minimumVersion, insecure]
        guard given.contains(where: { $0 != nil }) else { return nil }

        if insecure == true {
            guard trustRootsFile == nil, certificateFile == nil, keyFile == nil else {
                throw section.error("insecureWithoutVerification", .invalid("false when trust roots or a client certificate are given"))
            }
            return .insecureWithoutVerification(minimumVersion: minimumVersion ?? .tls12)
        }
        let trustRoots: TrustRoots
        switch (trustRootsFile, trustsSystemRoots ?? true) {
        case (nil, true): trustRoots = .system
        case (nil, false): throw section.error("trustRootsFile", .missing)
        case let (file?, true): trustRoots = .systemAnd(.file(file))
        case let (file?, false): trustRoots = .only(.file(file))
        }
        switch (certificateFile, keyFile) {
        case (_?, nil): throw section.error("clientKeyFile", .missing)
        case (nil, _?): throw section.error("clientCertificateFile", .missing)
        default: break
        }
        do {
            return try TLSSettings(
                trustRoots: trustRoots, clientCertificate: certificateFile.map(PEMSource.file), clientKey: keyFile.map(PEMSource.file),
                minimumVersion: minimumVersion ?? .tls12)
        } catch let failure as TLSSettingsError {
            // The key whose file failed (the key's, when it does not belong to the certificate).
            let key =
                failure.source == keyFile
                ? "clientKeyFile" : failure.source == certificateFile ? "clientCertificateFile" : "trustRootsFile"
            throw section.error(key, .unusableFile(failure.description))
        }
    }
}
