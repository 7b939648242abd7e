import Foundation
import Testing

@testable import APILayer

/// Report-only validation's bookkeeping: bounded metric series, one log line per distinct
/// failure per interval, and a bounded memory of what was logged.
@Suite struct ValidationDriftTests {
    @Test(arguments: [
        ("", ""), ("/items/3/name", "/items/*/name"), ("/3", "/*"), ("/a/10/b/2", "/a/*/b/*"), ("/v2/x", "/v2/x"),
        ("/a~1b/0", "/a~1b/*"), ("/0/1/2", "/*/*/*"),
    ])
    func arrayIndexesAreCollapsed(_ path: String, _ expected: String) {
        #expect(ValidationDrift.collapsed(path) == expected)
    }

    @Test func eachDistinctFailureIsLoggedOncePerInterval() {
        let log = ValidationDriftLog()
        let start = ContinuousClock.now
        #expect(log.shouldLog(method: "m", pointer: "/a", rule: "key", interval: .seconds(60), now: start))
        #expect(!log.shouldLog(method: "m", pointer: "/a", rule: "key", interval: .seconds(60), now: start + .seconds(59)))
        #expect(log.shouldLog(method: "m", pointer: "/a", rule: "type", interval: .seconds(60), now: start + .seconds(1)))
        #expect(log.shouldLog(method: "n", pointer: "/a", rule: "key", interval: .seconds(60), now: start + .seconds(1)))
        #expect(log.shouldLog(method: "m", pointer: "/a", rule: "key", interval: .seconds(60), now: start + .seconds(60)))
    }

    @Test func theLogKeepsABoundedNumberOfFailures() {
        let log = ValidationDriftLog()
        let start = ContinuousClock.now
        for index in 0..<ValidationDriftLog.capacity {
            #expect(log.shouldLog(method: "m", pointer: "/k\(index)", rule: "key", interval: .seconds(60), now: start))
        }
        // Full, and every entry still in its interval: a new failure is counted but not logged.
        #expect(!log.shouldLog(method: "m", pointer: "/new", rule: "key", interval: .seconds(60), now: start + .seconds(1)))
        // Once the interval passed, the old entries make room.
        #expect(log.shouldLog(method: "m", pointer: "/new", rule: "key", interval: .seconds(60), now: start + .seconds(61)))
    }

    @Test func strictIsTheDefault() {
        #expect(APIScope.Configuration().validationMode == .strict)
        #expect(!ValidationMode.strict.isReportOnly && ValidationMode.reportOnly.isReportOnly)
        #expect(ValidationMode.reportOnly.logInterval == .seconds(60))
        #expect(ValidationMode.reportOnly(logInterval: .seconds(5)).description == "reportOnly (log every 5.0 seconds)")
    }
}
