import Foundation

/// The Codable model of `ValidatorBench.response(users:)`: every field, as a service that maps
/// the whole answer would declare it (snake_case keys converted by the decoder).
struct BenchPage: Decodable, Equatable {
    struct Response: Decodable, Equatable {
        var count: Int
        var items: [User]
    }

    struct User: Decodable, Equatable {
        struct City: Decodable, Equatable {
            var id: Int
            var title: String
        }

        struct Counters: Decodable, Equatable {
            var friends: Int
            var followers: Int
            var photos: Int
            var videos: Int
        }

        struct LastSeen: Decodable, Equatable {
            var time: Date
            var platform: Int
        }

        struct Photo: Decodable, Equatable {
            var id: Int
            var url: URL
            var width: Int
            var height: Int
            var likes: Int
        }

        var id: Int
        var firstName: String
        var lastName: String
        var email: String
        var sex: Int
        var verified: Bool
        var rating: Double
        var status: String
        var nickname: String?
        var about: String?
        var city: City
        var counters: Counters
        var lastSeen: LastSeen
        var photos: [Photo]
        var tags: [String]
    }

    /// A few fields of each user: what a screen showing a list needs.
    struct Sparse: Decodable {
        struct Response: Decodable { var items: [Item] }
        struct Item: Decodable {
            var id: Int
            var firstName: String
            var city: User.City
        }

        var response: Response
    }

    var response: Response
}
