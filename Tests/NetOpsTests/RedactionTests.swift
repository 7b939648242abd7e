import Foundation
import NetOps
import Testing

/// `Redaction`: what never reaches a log line, a description or an error text.
struct RedactionTests {
    struct TextCase: Sendable, CustomTestStringConvertible {
        let name: String
        let input: String
        let secret: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        TextCase(name: "query parameter", input: "GET http://h/x?a=1&access_token=tok-1a2b&b=2", secret: "tok-1a2b"),
        TextCase(name: "form token", input: "body token=abc.def&x=1", secret: "abc.def"),
        TextCase(name: "password in JSON", input: #"{"user":"u","password":"p@ss \"w\""}"#, secret: "p@ss"),
        TextCase(name: "bearer", input: "Authorization: Bearer eyJhbGciOi.x-y_z", secret: "eyJhbGciOi"),
        TextCase(name: "header line", input: "Cookie: session=s3cr3t; other=1", secret: "s3cr3t"),
        TextCase(name: "user info", input: "cannot connect to https://user:hunter2@example.com/path", secret: "hunter2"),
        TextCase(name: "secret key, any case", input: "SECRET=shh&Password=pw-9", secret: "shh"),
    ])
    func freeTextLosesItsSecrets(_ testCase: TextCase) {
        let redacted = Redaction.standard.text(testCase.input)
        #expect(!redacted.contains(testCase.secret), "\(redacted)")
        #expect(redacted.contains(Redaction.placeholder))
        // Redacting twice changes nothing more.
        #expect(Redaction.standard.text(redacted) == redacted)
    }

    @Test func plainTextIsLeftAlone() {
        let text = "HTTP status 404 for http://127.0.0.1:8080/missing: a basic check of tokens"
        #expect(Redaction.standard.text(text) == text)
    }

    @Test func urlKeepsWhatIsNotSecret() throws {
        let url = try #require(URL(string: "https://bob:pw1@api.example.com:8443/v1/users?id=7&access_token=t0k&Token=x#frag"))
        let redacted = Redaction.standard.url(url)
        #expect(redacted == "https://<redacted>@api.example.com:8443/v1/users?id=7&access_token=<redacted>&Token=<redacted>#frag")
        #expect(Redaction.standard.urlWithoutQuery(url) == "https://api.example.com:8443/v1/users")
    }

    @Test func headersAndServiceKeys() {
        let redaction = Redaction.standard.adding(headers: ["X-Api-Key"], parameters: ["client_secret"])
        let headers = redaction.headers([
            "Authorization": "Bearer a", "proxy-authorization": "Basic b", "Cookie": "c", "Set-Cookie": "d",
            "x-api-key": "e", "Accept": "application/json",
        ])
        #expect(headers["Accept"] == "application/json")
        #expect(headers.filter { $0.value == Redaction.placeholder }.count == 5)
        #expect(redaction.text("client_secret=zz") == "client_secret=<redacted>")
        // The OAuth names are in the standard set (issue 25).
        #expect(Redaction.standard.text("client_secret=zz") == "client_secret=<redacted>")
        #expect(Redaction(parameters: ["pin"]).isSecret(parameter: "PIN"))
    }

    /// A redaction is a value: adding names makes a new one and leaves the first as it was;
    /// equal names make equal redactions, one key in a set.
    @Test func valueSemanticsAndEquality() {
        let base = Redaction.standard
        let more = base.adding(headers: ["X-Tenant-Id"], parameters: ["pin"])
        #expect(!base.isSecret(header: "X-Tenant-Id") && !base.isSecret(parameter: "pin"))
        #expect(more.isSecret(header: "x-tenant-id") && more.isSecret(parameter: "PIN"))
        #expect(more.headerNames == base.headerNames.union(["x-tenant-id"]))
        #expect(more.parameterKeys == base.parameterKeys.union(["pin"]))
        #expect(Redaction() == Redaction.standard)
        #expect(more != base)
        #expect(more == Redaction(headers: ["x-tenant-id"], parameters: ["pin"]))
        #expect(Set([Redaction(), .standard, more, Redaction(headers: ["X-Tenant-Id"], parameters: ["pin"])]).count == 2)
    }

    @Test func bodies() {
        let form = Data("user=u&password=p%20w&user%5Bpassword%5D=x".utf8)
        #expect(
            Redaction.standard.body(form, contentType: "application/x-www-form-urlencoded; charset=utf-8")
                == "user=u&password=<redacted>&user%5Bpassword%5D=<redacted>")
        let json = Data(#"{"login":{"password":"p","name":"n"},"items":[{"token":"t"}]}"#.utf8)
        #expect(
            Redaction.standard.body(json, contentType: "application/json")
                == #"{"items":[{"token":"<redacted>"}],"login":{"name":"n","password":"<redacted>"}}"#)
        #expect(Redaction.standard.body(Data([0xFF, 0x00, 0xFE]), contentType: "application/octet-stream") == "<3 bytes>")
    }

    /// Bad input: a thousand headers, each redacted or kept, none lost.
    @Test func aThousandHeaders() {
        var headers: [String: String] = ["Authorization": "Bearer secret-1000"]
        for index in 0..<1_000 { headers["X-Header-\(index)"] = "value-\(index)" }
        let redacted = Redaction.standard.headers(headers)
        #expect(redacted.count == 1_001)
        #expect(redacted["Authorization"] == Redaction.placeholder)
        #expect(redacted["X-Header-999"] == "value-999")
    }

    @Test func errorDescriptionsHideCredentials() throws {
        let url = try #require(URL(string: "https://user:pass@example.com/x?access_token=abc"))
        let error = NetOpsError(.transport(code: 7, reason: "failed for https://user:pass@example.com/x?access_token=abc"), url: url)
        #expect(!error.description.contains("pass@"))
        #expect(!error.description.contains("abc"))
    }
}
