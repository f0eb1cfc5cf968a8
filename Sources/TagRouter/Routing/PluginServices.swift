import Lifecycle

/// The plugins' long-lived parts (`ActionPlugin.run()`, such as the MQTT
/// connection) across reloads, as tasks of `RoutingService`'s group: each runs
/// from the first config whose router uses its instance until a config no
/// longer has that instance — stopped after the old router drained, before the
/// new one starts — or until the routing ends.
struct PluginServices {
    /// What ended in the routing group: the router of one config, or one plugin's service.
    enum Ended: Sendable {
        case router
        case plugin(ObjectIdentifier)
    }

    /// The running services, each with the latch that stops it.
    private var running: [ObjectIdentifier: Latch] = [:]

    /// Stops the services of instances `plugins` does not hold and waits until
    /// they have ended, then starts a service for each instance not running yet.
    mutating func switchTo(_ plugins: [LoadedPlugin], in group: inout ThrowingTaskGroup<Ended, any Error>) async throws {
        let kept = Set(plugins.map(ObjectIdentifier.init))
        try await stop(running.keys.filter { !kept.contains($0) }, in: &group)
        for loaded in plugins where running[ObjectIdentifier(loaded)] == nil {
            let (id, stop, plugin) = (ObjectIdentifier(loaded), Latch(), loaded.plugin)
            running[id] = stop
            group.addTask {
                do { try await stop.cancelling { try await plugin.run() } } catch is CancellationError {}
                return .plugin(id)
            }
        }
    }

    /// Waits for the router task; a plugin's service that fails meanwhile throws here.
    mutating func waitForRouter(in group: inout ThrowingTaskGroup<Ended, any Error>) async throws {
        while let ended = try await group.next() {
            switch ended {
            case .router: return
            case .plugin(let id): running[id] = nil
            }
        }
    }

    /// Stops every service and waits until all have ended.
    mutating func stopAll(in group: inout ThrowingTaskGroup<Ended, any Error>) async throws {
        try await stop(Array(running.keys), in: &group)
    }

    private mutating func stop(_ ids: [ObjectIdentifier], in group: inout ThrowingTaskGroup<Ended, any Error>) async throws {
        var stopping = Set(ids.filter { running[$0] != nil })
        for id in stopping { running[id]?.open() }
        while !stopping.isEmpty, let ended = try await group.next() {
            guard case .plugin(let id) = ended else { continue }
            running[id] = nil
            stopping.remove(id)
        }
    }
}
