// The edge runtime (edge-runtime package, as Vercel's Edge Functions): a service-worker style listener.
import { answerScenario } from './http.js'

interface FetchEvent {
  request: Request
  respondWith(response: Promise<Response>): void
}

declare function addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void

addEventListener('fetch', (event) => event.respondWith(answerScenario(event.request)))
