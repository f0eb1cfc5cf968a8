import TagCore
import Testing

@testable import TagReader

/// The deadlines of jobs waiting for a tag, without a reader: each job that no
/// tag took is answered `no_tag` at its own deadline, by the queue's one
/// watchdog — whatever order the jobs came in.
@Suite struct TagJobQueueTests {
    static func read(_ timeout: Duration) -> TagJob { TagJob(.read, timeout: timeout, takesPresent: false, origin: "test") }

    /// Submits `job` and returns a stream that yields its one answer.
    static func submit(_ job: TagJob, to queue: TagJobQueue) -> AsyncStream<TagJobResult> {
        let (answers, answer) = AsyncStream.makeStream(of: TagJobResult.self)
        queue.submit(job) { result in
            answer.yield(result)
            answer.finish()
        }
        return answers
    }

    @Test func eachJobExpiresAtItsOwnDeadlineWhateverTheOrderTheyCameIn() async throws {
        let queue = TagJobQueue(reader: "desk")
        let patient = Self.submit(Self.read(.seconds(60)), to: queue)
        let first = Self.submit(Self.read(.milliseconds(100)), to: queue)
        let second = Self.submit(Self.read(.milliseconds(250)), to: queue)
        var answers = first.makeAsyncIterator()
        #expect(await answers.next() == .refused(TagJobRefusal(.noTag, "no tag was placed on reader 'desk' within 0.1 s (a tag lying there already does not count: lift it and place it again)")))
        answers = second.makeAsyncIterator()
        #expect(await answers.next() == .refused(TagJobRefusal(.noTag, "no tag was placed on reader 'desk' within 0.25 s (a tag lying there already does not count: lift it and place it again)")))
        let claimed = try #require(queue.claim(arriving: true), "the job submitted first, with the latest deadline, still waits")
        #expect(claimed.job.timeout == .seconds(60))
        claimed.finish(.refused(TagJobRefusal(.cancelled, "test over")))
        answers = patient.makeAsyncIterator()
        #expect(await answers.next() == .refused(TagJobRefusal(.cancelled, "test over")), "answered once, by the claim")
        #expect(queue.claim(arriving: true) == nil)
    }
}
