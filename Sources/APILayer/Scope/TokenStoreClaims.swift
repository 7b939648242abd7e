import NetOps

/// Which API uses which token store, to tell when two APIs were given the same one.
final class TokenStoreClaims: Sendable {
    static let shared = TokenStoreClaims()

    private struct Claim {
        weak var scope: APIScope?
        let name: String
    }

    private let claims = Locked<[String: Claim]>([:])

    /// Records that `scope` uses `store`; returns the name of another live API that uses it too.
    func claim(_ store: any TokenStore, for scope: APIScope) -> String? {
        guard let identity = store.storeIdentity else { return nil }
        return claims.withLock { claims in
            for (key, claim) in claims where claim.scope === scope && key != identity { claims[key] = nil }
            if let existing = claims[identity], let owner = existing.scope, owner !== scope { return existing.name }
            claims[identity] = Claim(scope: scope, name: scope.name)
            return nil
        }
    }

    /// Forgets the store `scope` used.
    func release(_ scope: APIScope) {
        claims.withLock { claims in
            for (key, claim) in claims where claim.scope === scope || claim.scope == nil { claims[key] = nil }
        }
    }
}
