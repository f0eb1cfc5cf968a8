import ExecPlugin
import MQTTPlugin
import OpenURLPlugin
import ShellPlugin
import TagRouter
import WebhookPlugin

/// Every action plugin built into the `tagrouter` tool: the one place that
/// lists them. A config may use exactly these action names.
let builtinPlugins = PluginRegistry([
    LogPlugin.self,
    MQTTPlugin.self,
    ShellPlugin.self,
    OpenURLPlugin.self,
    WebhookPlugin.self,
    ExecPlugin.self,
])
