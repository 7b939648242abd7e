import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

extension DemoRoutes {
    /// InventoryService, the small API of the OpenAPI tests (`Tests/OpenAPIImportTests/Fixtures/inventory.yaml`
    /// describes it), per realm under `/inventory/{realm}/`, with the realm's bearer tokens in
    /// the `Authorization` header:
    /// - `GET items?limit=&variant=` — `{"items": [...], "total": n}`;
    /// - `GET items/{id}?variant=` — one item;
    /// - `POST items` — JSON `{"name", "price", "tags"?}`: 201 with the new item;
    /// - `DELETE items/{id}` — 204.
    /// `variant` makes the answer break one rule of the description on purpose (`minimum`,
    /// `maximum`, `minLength`, `maxLength`, `enum`, `minItems`, `maxItems`, `required`, `type`),
    /// or leave out what is optional (`sparse`); without it the answer conforms.
    static func addInventoryRoutes(to router: Router<BasicRequestContext>, realms: TokenRealms) {
        let group = router.group("inventory/{realm}")
        let nextID = NIOLockedValueBox(1000)

        group.get("items") { request, context in
            try authorized(request, context, realms) {
                let query = request.uri.queryParameters
                let limit = min(max(query.get("limit", as: Int.self) ?? 3, 1), 50)
                let variant = query["variant"].map(String.init)
                let items = (1...limit).map { item(id: $0, variant: variant) }
                return json(#"{"items":[\#(items.joined(separator: ","))],"total":\#(limit)}"#)
            }
        }

        group.get("items/{id}") { request, context in
            try authorized(request, context, realms) {
                guard let id = context.parameters.get("id", as: Int.self), id > 0 else {
                    return json(#"{"message":"Not Found"}"#, status: .notFound)
                }
                return json(item(id: id, variant: request.uri.queryParameters["variant"].map(String.init)))
            }
        }

        group.post("items") { request, context in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try authorized(request, context, realms) {
                struct NewItem: Decodable {
                    var name: String
                    var price: Double
                    var tags: [String]?
                }
                guard let new = try? JSONDecoder().decode(NewItem.self, from: Data(buffer: body)) else {
                    return json(#"{"message":"Problems parsing JSON"}"#, status: .badRequest)
                }
                let id = nextID.withLockedValue { value -> Int in
                    value += 1
                    return value
                }
                let tags = (new.tags ?? ["new"]).map(quoted).joined(separator: ",")
                return json(
                    #"{"id":\#(id),"name":\#(quoted(new.name)),"status":"available","price":\#(new.price),"stock":0,"tags":[\#(tags)],"updated":"2025-01-01T00:00:00Z"}"#,
                    status: .created)
            }
        }

        group.delete("items/{id}") { request, context in
            try authorized(request, context, realms) { Response(status: .noContent) }
        }
    }

    /// The item `id`, conforming, or breaking the rule `variant` names.
    private static func item(id: Int, variant: String?) -> String {
        var fields: [(String, String)] = [
            ("id", "\(id)"), ("name", quoted("Item \(id)")), ("status", quoted(["available", "reserved", "sold"][id % 3])),
            ("price", "\(Double(id) * 2.5)"), ("stock", "\(id * 10 % 1000)"), ("tags", #"["tools","garden"]"#),
            ("note", "null"), ("sku", quoted("ABC-\(1000 + id)")), ("updated", quoted("2025-01-01T00:00:00Z")),
        ]
        func set(_ key: String, _ value: String?) {
            fields.removeAll { $0.0 == key }
            if let value { fields.append((key, value)) }
        }
        switch variant {
        case "minimum"?: set("id", "0")
        case "maximum"?: set("stock", "1001")
        case "minLength"?: set("name", #""""#)
        case "maxLength"?: set("name", quoted(String(repeating: "x", count: 41)))
        case "enum"?: set("status", quoted("lost"))
        case "minItems"?: set("tags", "[]")
        case "maxItems"?: set("tags", #"["a","b","c","d","e","f"]"#)
        case "required"?: set("name", nil)
        case "type"?: set("id", quoted("\(id)"))
        case "sparse"?:
            set("note", nil)
            set("sku", nil)
            set("updated", nil)
            set("stock", nil)
        default: break
        }
        return "{" + fields.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// Answers with `body` when the request carries a token of the realm, else 401.
    private static func authorized(
        _ request: Request, _ context: BasicRequestContext, _ realms: TokenRealms, _ body: () throws -> Response
    ) throws -> Response {
        let realm = try context.parameters.require("realm")
        var token: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            token = String(header.dropFirst("bearer ".count))
        }
        guard realms[realm].admit(token) else { return json(#"{"message":"Bad credentials"}"#, status: .unauthorized) }
        return try body()
    }
}
