import APILayer
import APILayerOpenAPI
import AsyncHTTPClient
import DemoServer
import Foundation
import HTTPTypes
import NetOps
import NetOpsNIO
import OpenAPIImport
import Templater
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The low items of issue 25: multipart part headers and boundaries, template files that are
/// not regular files or are too large, OpenAPI numbers that fit no integer, dot segments in
/// the OpenAPI transport, and header values in NIO's error texts.
@Suite("Security: hostile content", .processGate(.shared, minutes: 2))
struct HostileContentTests {
    // MARK: Multipart

    struct PartCase: Sendable, CustomTestStringConvertible {
        let name: String
        let field: String
        let filename: String
        let contentType: String
        var testDescription: String { name }
    }

    static let hostileParts = [
        PartCase(name: "CRLF in a name", field: "a\r\nX-Injected: 1", filename: "f.txt", contentType: "text/plain"),
        PartCase(name: "NUL in a name", field: "a\u{0}b", filename: "f.txt", contentType: "text/plain"),
        PartCase(name: "LF in a file name", field: "file", filename: "f\n.txt", contentType: "text/plain"),
        PartCase(name: "CRLF in a content type", field: "file", filename: "f.txt", contentType: "text/plain\r\nX-Injected: 1"),
        PartCase(name: "NUL in a content type", field: "file", filename: "f.txt", contentType: "text/plain\u{0}"),
    ]

    /// A part header that would break its line is refused, on both engines, before anything is
    /// sent: the operation fails with `.invalidBody`.
    @Test(arguments: hostileParts, TestEngine.allCases)
    func aPartHeaderWithACRLFOrNULIsRefused(_ part: PartCase, _ engine: TestEngine) async throws {
        // A server of this test's own: nothing another test sends can be counted as this one's.
        let server = try await ScriptedHTTPServer.start { _ in .text("ok") }
        var form = MultipartFormData()
        form.append(Data("x".utf8), name: part.field, filename: part.filename, contentType: part.contentType)
        let operation = UploadOperation.multipart(form, to: server.url("/upload")).on(engine)
        _ = try? await operation.run()
        await server.stop()
        guard case .invalidBody? = operation.error?.kind else {
            Issue.record("\(part.name): \(String(describing: operation.error))")
            return
        }
        #expect(server.requests.isEmpty)
    }

    @Test(arguments: ["", String(repeating: "b", count: 71), "with\r\nCRLF", "ends with space ", "semi;colon", "quote\"d", "é"])
    func aBoundaryOutsideRFC2046IsRefused(_ boundary: String) throws {
        var form = MultipartFormData(boundary: boundary)
        form.append("v", name: "n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-boundary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: NetOpsError.self) { try form.write(to: file) }
        #expect(!FileManager.default.fileExists(atPath: file.path), "nothing is written")
    }

    /// A quote in a name is written as `%22` (RFC 7578), and a boundary with RFC 2046's
    /// non-token characters is quoted in the Content-Type.
    @Test func aQuoteInANameIsPercentEncodedAndAnOddBoundaryQuoted() throws {
        var form = MultipartFormData(boundary: "a'(b)+c_,-./:=? d")
        form.append(Data("x".utf8), name: #"na"me"#, filename: #"fi"le.txt"#, contentType: "text/plain")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-quote-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try form.write(to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(#"name="na%22me"; filename="fi%22le.txt""#), "\(text)")
        #expect(form.contentType == #"multipart/form-data; boundary="a'(b)+c_,-./:=? d""#)
        #expect(MultipartFormData(boundary: "simple-1").contentType == "multipart/form-data; boundary=simple-1")
    }

    // MARK: Template files

    private static func templateFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-hostile-templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A FIFO in a template's place is refused at once (it would block a read forever), and so
    /// is a folder; `checkFolder` says so too, without blocking.
    @Test func aTemplateThatIsAFIFOOrAFolderIsRefusedWithoutBlocking() throws {
        let folder = try Self.templateFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("fifo.json").path, 0o600) == 0)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("dir.json"), withIntermediateDirectories: true)
        let store = TemplateStore(directory: folder)
        do {
            _ = try store.template(for: "fifo")
            Issue.record("a FIFO was read")
        } catch {
            #expect(error.description.contains("FIFO"), "\(error)")
        }
        do {
            _ = try store.template(for: "dir")
            Issue.record("a folder was read")
        } catch {
            #expect(error.description.contains("folder"), "\(error)")
        }
    }

    /// A template file above `Templater.maximumTemplateBytes` is refused, not read into memory.
    @Test func aTemplateLargerThanTheCapIsRefused() throws {
        let folder = try Self.templateFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("huge.json")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("[".utf8)))
        // A sparse file: its size costs no disk.
        #expect(truncate(file.path, off_t(Templater.maximumTemplateBytes + 1)) == 0)
        let store = TemplateStore(directory: folder)
        do {
            _ = try store.template(for: "huge")
            Issue.record("a huge template was read")
        } catch {
            #expect(error.description.contains("larger than \(Templater.maximumTemplateBytes) bytes"), "\(error)")
        }
    }

    // MARK: OpenAPI import

    struct NumberCase: Sendable, CustomTestStringConvertible {
        let name: String
        let schema: String
        let construct: String
        var testDescription: String { name }
    }

    static let hostileNumbers = [
        NumberCase(name: "maxLength 1e20", schema: "{type: string, maxLength: 1.0e+20}", construct: "maxLength"),
        NumberCase(name: "minLength .inf", schema: "{type: string, minLength: .inf}", construct: "minLength"),
        NumberCase(name: "maxItems .nan", schema: "{type: array, items: {type: string}, maxItems: .nan}", construct: "maxItems"),
        NumberCase(name: "minItems -1e300", schema: "{type: array, items: {type: string}, minItems: -1.0e+300}", construct: "minItems"),
        NumberCase(name: "integer minimum 1e20", schema: "{type: integer, minimum: 1.0e+20}", construct: ""),
        NumberCase(name: "integer maximum .inf", schema: "{type: integer, maximum: .inf}", construct: "maximum"),
        NumberCase(name: "number exclusiveMinimum -.inf", schema: "{type: number, exclusiveMinimum: -.inf}", construct: "exclusiveMinimum"),
    ]

    /// Numbers that fit no `Int`, or are infinite or NaN, give a finding in the import report —
    /// never a trap.
    @Test(arguments: hostileNumbers)
    func aNumberThatFitsNoIntegerIsAFindingNotATrap(_ input: NumberCase) throws {
        let yaml = """
            openapi: 3.1.0
            info: {title: hostile, version: '1'}
            paths:
              /things:
                get:
                  operationId: getThings
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              value: \(input.schema)
            """
        let description = try OpenAPIDescription.parse(Data(yaml.utf8), path: "hostile.yaml")
        let operations = OpenAPIImporter().operations(in: description)
        let operation = try #require(operations.first)
        #expect(operation.template != nil, "\(String(describing: operation.skipReason))")
        if !input.construct.isEmpty {
            #expect(operation.findings.contains { $0.construct == input.construct && $0.kind == .notChecked }, "\(operation.findings)")
        }
    }

    // MARK: OpenAPI transport

    /// The transport refuses `.` and `..` path segments, as the recipe refuses them as path values.
    @Test(arguments: ["/items/..", "/items/.", "/items/%2e%2E", "/items/%2E/x", "/../admin?x=1"])
    func aDotSegmentIsRefusedByTheTransport(_ path: String) throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
        #expect(throws: APILayerTransportError.self) {
            try APILayerTransport.urlRequest(for: request, baseURL: URL(string: "https://api.example.com/v1")!)
        }
        let fine = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items/..x/.y?q=..")
        #expect(try APILayerTransport.urlRequest(for: fine, baseURL: URL(string: "https://api.example.com/v1")!).url?.path == "/v1/items/..x/.y")
    }

    // MARK: NIO error text

    /// A header value AsyncHTTPClient refuses (it may be a credential) never reaches the error text.
    @Test func aRefusedHeaderValueIsNotInTheNIOErrorText() {
        let secret = "Bearer nio-secret-value"
        let failure = NIOFailureMapping.failure(from: HTTPClientError.invalidHeaderFieldValues([secret + "\r\n"]), connected: false)
        #expect(!"\(failure)".contains("nio-secret-value"), "\(failure)")
        #expect("\(failure)".contains("Invalid header field values"))
        let names = NIOFailureMapping.failure(from: HTTPClientError.invalidHeaderFieldNames(["X-Bad\r\n"]), connected: false)
        #expect("\(names)".contains("Invalid header field names"))
    }
}
