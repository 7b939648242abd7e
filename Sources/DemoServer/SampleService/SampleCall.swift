import Foundation
import Hummingbird

/// One call of a SampleService method: its parameters, and the answer it gets.
struct SampleCall {
    /// The method's name, e.g. `users.get`.
    let name: String
    /// The realm the call belongs to.
    let realm: String
    /// `host:port` as the client addressed the server, for the URLs in answers.
    let authority: String
    /// The realm's state.
    let service: SampleService
    /// Query and form parameters (form values win).
    var parameters: [String: String] = [:]

    /// The user every token of the demo service belongs to.
    static let currentUser = 1

    /// Where photo URLs of this realm point.
    var photoBase: String { "http://\(authority)/api/\(realm)/photos/" }

    /// Reads the query and, for a form body, the form. A key given more than once (how clients
    /// send arrays) reads as its values joined by commas.
    mutating func readParameters(of request: Request) async throws {
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            parameters[name] = parameters[name].map { $0 + "," + String(value) } ?? String(value)
        }
        let isForm = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        let body = try await request.body.collect(upTo: 1 << 20)
        if isForm {
            for (key, value) in DemoRoutes.formFields(String(buffer: body)) { parameters[key] = value }
        }
    }

    /// The service-level error envelope, with status 200 as the service sends it.
    func error(_ code: Int, _ message: String) -> Response {
        let params = parameters.filter { $0.key != "access_token" }.sorted { $0.key < $1.key }
            .map { #"{"key":\#(DemoRoutes.quoted($0.key)),"value":\#(DemoRoutes.quoted($0.value))}"# }
        let requestParams = ([#"{"key":"method","value":\#(DemoRoutes.quoted(name))}"#] + params).joined(separator: ",")
        return DemoRoutes.json(#"{"error":{"error_code":\#(code),"error_msg":\#(DemoRoutes.quoted(message)),"request_params":[\#(requestParams)]}}"#)
    }

    /// `{"response": value}`.
    func response(_ value: some Encodable) -> Response {
        guard let data = try? JSONEncoder().encode(SampleRecords.Envelope(response: value)) else {
            return error(1, "Unknown error occurred")
        }
        return DemoRoutes.json(String(decoding: data, as: UTF8.self))
    }

    /// The answer of the method.
    func answer() -> Response {
        switch name {
        case "users.get": return usersGet()
        case "friends.get": return friendsGet()
        case "wall.get": return wallGet()
        case "wall.post": return wallPost()
        case "photos.getAll": return photosGetAll()
        case "photos.getWallUploadServer": return getWallUploadServer()
        case "photos.saveWallPhoto": return saveWallPhoto()
        case "auth.logout": return response(1)
        default: return error(3, "Unknown method passed")
        }
    }

    // MARK: Parameters

    private func integer(_ key: String, default value: Int) -> Int? {
        guard let text = parameters[key], !text.isEmpty else { return value }
        return Int(text)
    }

    private func list(_ key: String) -> [String] {
        (parameters[key] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func invalid(_ key: String) -> Response {
        error(100, "One of the parameters specified was missing or invalid: \(key)")
    }

    /// One page of `items`: `offset` (0 when absent) and `count` (`defaultCount` when absent,
    /// at most `maxCount`), with the total.
    private func page<Item: Encodable & Sendable>(_ items: [Item], defaultCount: Int, maxCount: Int) -> Response {
        guard let offset = integer("offset", default: 0), offset >= 0 else { return invalid("offset") }
        guard let count = integer("count", default: defaultCount), (0...maxCount).contains(count) else { return invalid("count") }
        let lower = min(offset, items.count)
        let upper = min(offset + count, items.count)
        return response(SampleRecords.Page(count: items.count, items: Array(items[lower..<upper])))
    }

    private func owner(_ key: String) -> Int? {
        guard let id = integer(key, default: Self.currentUser), SampleDataset.exists(id) else { return nil }
        return id
    }

    // MARK: Methods

    private func usersGet() -> Response {
        let ids = list("user_ids")
        let fields = Set(list("fields"))
        var users: [SampleRecords.User] = []
        for text in ids.isEmpty ? ["\(Self.currentUser)"] : ids {
            guard let id = Int(text), SampleDataset.exists(id) else { return error(113, "Invalid user id") }
            users.append(SampleDataset.user(id, fields: fields, photoBase: photoBase))
        }
        guard users.count <= 1_000 else { return invalid("user_ids") }
        if service.answerVersion == .next { return response(users.map(SampleRecords.NextUser.init)) }
        return response(users)
    }

    private func friendsGet() -> Response {
        guard let id = owner("user_id") else { return error(113, "Invalid user id") }
        let friends = SampleDataset.friends(of: id).map { SampleDataset.user($0, fields: [], photoBase: photoBase) }
        if service.answerVersion == .next { return page(friends.map(SampleRecords.NextUser.init), defaultCount: 5_000, maxCount: 5_000) }
        return page(friends, defaultCount: 5_000, maxCount: 5_000)
    }

    private func wallGet() -> Response {
        guard let id = owner("owner_id") else { return error(113, "Invalid user id") }
        return page(service.posts(of: id), defaultCount: 20, maxCount: 100)
    }

    private func wallPost() -> Response {
        guard let id = owner("owner_id") else { return error(113, "Invalid user id") }
        guard id == Self.currentUser else { return error(214, "Access to adding post denied") }
        let message = parameters["message"] ?? ""
        var attachments: [SampleRecords.Attachment] = []
        for text in list("attachments") {
            let parts = text.dropFirst("photo".count).split(separator: "_")
            guard text.hasPrefix("photo"), parts.count == 2, let ownerID = Int(parts[0]), let photoID = Int(parts[1]),
                service.photoBytes(owner: ownerID, id: photoID) != nil
            else { return invalid("attachments") }
            attachments.append(.init(photo: .init(id: photoID, ownerID: ownerID)))
        }
        guard !message.isEmpty || !attachments.isEmpty else { return invalid("message") }
        guard message.utf8.count <= 16_384 else { return invalid("message") }
        let postID = service.addPost(owner: id, author: Self.currentUser, text: message, attachments: attachments.isEmpty ? nil : attachments)
        return response(SampleRecords.PostCreated(postID: postID))
    }

    private func photosGetAll() -> Response {
        guard let id = owner("owner_id") else { return error(113, "Invalid user id") }
        return page(service.photos(of: id, photoBase: photoBase), defaultCount: 20, maxCount: 200)
    }

    private func getWallUploadServer() -> Response {
        let ticket = service.openTicket(owner: Self.currentUser)
        return response(
            SampleRecords.UploadServer(
                uploadURL: "http://\(authority)/api/\(realm)/upload/\(ticket)",
                albumID: SampleService.wallAlbumID, userID: Self.currentUser))
    }

    private func saveWallPhoto() -> Response {
        guard let server = integer("server", default: -1), let photo = parameters["photo"], let hash = parameters["hash"] else {
            return invalid("photo")
        }
        guard let saved = service.savePhoto(owner: Self.currentUser, server: server, photo: photo, hash: hash, photoBase: photoBase) else {
            return error(121, "Invalid hash")
        }
        return response([saved])
    }
}
