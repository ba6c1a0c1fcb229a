// workerd (through miniflare): a module Worker.
import { answerScenario } from './http.js'

export default { fetch: answerScenario }
