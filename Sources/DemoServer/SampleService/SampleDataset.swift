import Foundation

/// The fixed part of SampleService's data: 60 users, their friends, walls and photos, the same
/// on every run (ids, names and dates are computed, not random).
///
/// User 13 is a deleted account whose names are empty: `users.get` answers it, and its empty
/// `first_name` breaks the `users.get` template's length rule, as a real service's deleted
/// accounts break a client's expectations.
enum SampleDataset {
    /// Users 1 through `userCount` exist.
    static let userCount = 60
    /// The deleted account.
    static let deletedUserID = 13
    /// Posts every wall starts with.
    static let initialPostCount = 25
    /// Photos every user starts with.
    static let initialPhotoCount = 12
    /// The date of the newest built-in post or photo (2023-11-14 22:13:20 UTC).
    static let epoch = 1_700_000_000

    private static let firstNames = ["Pavel", "Anna", "Ivan", "Maria", "Oleg", "Elena", "Sergey", "Olga", "Dmitry", "Natalia"]
    private static let lastNames = ["Durov", "Ivanova", "Petrov", "Smirnova", "Volkov", "Kuznetsova", "Sokolov", "Popova", "Lebedev", "Novikova"]
    private static let cities = [SampleRecords.City(id: 1, title: "Moscow"), .init(id: 2, title: "Saint Petersburg"), .init(id: 3, title: "Kazan")]

    /// Whether user `id` exists.
    static func exists(_ id: Int) -> Bool {
        (1...userCount).contains(id)
    }

    /// User `id` with the optional `fields` asked for (`photo_100`, `city`).
    static func user(_ id: Int, fields: Set<String>, photoBase: String) -> SampleRecords.User {
        if id == deletedUserID {
            return SampleRecords.User(id: id, firstName: "", lastName: "", deactivated: "deleted", online: 0)
        }
        var user = SampleRecords.User(
            id: id, firstName: firstNames[(id - 1) % firstNames.count],
            lastName: lastNames[(id - 1) % lastNames.count], online: id % 2)
        if fields.contains("photo_100") { user.photo100 = photoBase + "\(id)_1_100.jpg" }
        if fields.contains("city"), id % 3 != 0 { user.city = cities[id % cities.count] }
        return user
    }

    /// The friends of user `id`, in id order (the deleted account is nobody's friend).
    static func friends(of id: Int) -> [Int] {
        (1...userCount).filter { $0 != id && $0 != deletedUserID && ($0 + id) % 3 != 0 }
    }

    /// The built-in posts on `owner`'s wall, newest first.
    static func posts(of owner: Int) -> [SampleRecords.Post] {
        (1...initialPostCount).reversed().map { number in
            let author = number % 4 == 0 ? friends(of: owner).first ?? owner : owner
            let attachments =
                number % 5 == 0
                ? [SampleRecords.Attachment(photo: .init(id: number % initialPhotoCount + 1, ownerID: owner))] : nil
            return SampleRecords.Post(
                id: number, ownerID: owner, fromID: author, date: epoch - (initialPostCount - number) * 3_600,
                text: "Post #\(number) on the wall of user \(owner)", attachments: attachments,
                likes: .init(count: (number * 7) % 50))
        }
    }

    /// The built-in photos of `owner`, newest first.
    static func photos(of owner: Int, photoBase: String) -> [SampleRecords.Photo] {
        (1...initialPhotoCount).reversed().map { number in
            SampleRecords.Photo(
                id: number, albumID: -7, ownerID: owner, date: epoch - (initialPhotoCount - number) * 86_400,
                text: "", sizes: sizes(owner: owner, id: number, photoBase: photoBase))
        }
    }

    /// The two sizes every photo has, `m` (130×97) and `x` (604×453).
    static func sizes(owner: Int, id: Int, photoBase: String) -> [SampleRecords.PhotoSize] {
        [
            .init(type: "m", url: photoBase + "\(owner)_\(id)_m.jpg", width: 130, height: 97),
            .init(type: "x", url: photoBase + "\(owner)_\(id)_x.jpg", width: 604, height: 453),
        ]
    }
}
