import TagCore
import Testing

@Suite struct ReaderConfigTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let config = ReaderConfig(name: "front-door")
        #expect(config.device == "auto")
        #expect(config.cooldown == .seconds(1))
        #expect(config.exitDelay == .milliseconds(500))
        #expect(config.ignoreOnConnect == false)
        #expect(config.pollInterval == .milliseconds(100))
        #expect(config.polling == .autoPoll)
        #expect(config.watchdog == .seconds(10))
    }
}
