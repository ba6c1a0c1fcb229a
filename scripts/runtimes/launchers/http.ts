// The scenario behind a fetch handler, for the runtimes that are servers (workerd, the edge runtime):
// the config is the POSTed JSON, the report the answer.
import type { ScenarioConfig } from '../protocol.js'
import { runScenario } from '../scenario.js'

export async function answerScenario(request: Request): Promise<Response> {
  try {
    const config = (await request.json()) as ScenarioConfig
    return Response.json(await runScenario(config))
  } catch (error) {
    // A crash must reach the Node side as a reason, not as the runtime's generic 500 page.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    return Response.json({ crashed: reason }, { status: 500 })
  }
}
