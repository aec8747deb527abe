import Testing

@testable import GifxServer

/// The admission actor's arithmetic (docs/serve.md, "Admission by the memory plan"): threads by demand and
/// memory by fair share. Expected grants are worked out by hand from the rule: a conversion admitted with R
/// requests in the service (running, waiting, itself) gets threads / R of them, at most those free, at least 1.
@Suite struct AdmissionTests {
    @Test func aLoneRequestGetsEveryThreadAndTheFairShareOfMemory() async throws {
        let admission = Admission(budget: 1000, slots: 4, threads: 8, queueLength: 4, queueTimeout: .seconds(5))
        let grant = try await admission.acquire(smallest: 10)
        #expect(grant.threads == 8)
        #expect(grant.bytes == 250)  // budget / slots
        await admission.release(grant)
        #expect(await admission.freeThreads == 8)
        #expect(await admission.free == 1000)
    }

    @Test func underLoadEachConversionGetsItsShareAndNeverLessThanOne() async throws {
        let admission = Admission(budget: 1000, slots: 4, threads: 8, queueLength: 4, queueTimeout: .seconds(5))
        let first = try await admission.acquire(smallest: 10)  // R = 1: 8 threads, none left
        #expect(first.threads == 8)
        let second = try await admission.acquire(smallest: 10)  // R = 2: 8 / 2 = 4, but 0 free: 1
        #expect(second.threads == 1)
        await admission.release(first)  // 8 free again
        let third = try await admission.acquire(smallest: 10)  // R = 2 (second, third): 4
        #expect(third.threads == 4)
        let fourth = try await admission.acquire(smallest: 10)  // R = 3: 8 / 3 = 2, 3 free: 2
        #expect(fourth.threads == 2)
        #expect(await admission.freeThreads == 1)
        for grant in [second, third, fourth] { await admission.release(grant) }
        #expect(await admission.freeThreads == 8)
    }

    @Test func aWaiterAdmittedWithOthersBehindItSharesWithThem() async throws {
        // One slot: the second and third requests wait; when the first ends, the second is admitted with the
        // third still waiting (R = 2: 4 threads), then the third alone (R = 1, all 8 free again: 8).
        let admission = Admission(budget: 1000, slots: 1, threads: 8, queueLength: 4, queueTimeout: .seconds(30))
        let first = try await admission.acquire(smallest: 10)
        #expect(first.threads == 8)
        async let second = admission.acquire(smallest: 10)
        while await admission.waiting < 1 { await Task.yield() }
        async let third = admission.acquire(smallest: 10)
        while await admission.waiting < 2 { await Task.yield() }
        await admission.release(first)
        let secondGrant = try await second
        #expect(secondGrant.threads == 4)
        await admission.release(secondGrant)
        let thirdGrant = try await third
        #expect(thirdGrant.threads == 8)
        await admission.release(thirdGrant)
    }
}
