import { UpstreamInputExchange, type UpstreamAsk } from './upstream-input.exchange';

const question: UpstreamAsk = { method: 'elicitation/create', params: { message: 'name?' } };
const sampling: UpstreamAsk = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 8 } };

describe('the exchange between a running upstream call and the agent', () => {
  it("gives the call's result when it ends without asking", async () => {
    const exchange = new UpstreamInputExchange<string>().start(async () => 'done');
    await expect(exchange.turn()).resolves.toEqual({ kind: 'done', result: 'done' });
  });

  it("gives the call's failure as a turn, not as an unhandled rejection", async () => {
    const failure = new Error('upstream broke');
    const exchange = new UpstreamInputExchange<string>().start(async () => Promise.reject(failure));
    await expect(exchange.turn()).resolves.toEqual({ kind: 'failed', error: failure });
  });

  it('gathers the questions of one round, and the answers resume the call until its result', async () => {
    const exchange = new UpstreamInputExchange<string>();
    exchange.start(async () => {
      const [name, line] = await Promise.all([exchange.ask(question), exchange.ask(sampling)]);
      const again = await exchange.ask(question);
      return `${String(name['v'])}/${String(line['v'])}/${String(again['v'])}`;
    });
    const first = await exchange.turn();
    expect(first).toEqual({ kind: 'asks', asks: new Map([['elicitation-1', question], ['sampling-2', sampling]]) });
    expect(exchange.answer('elicitation-1', { v: 'a' })).toBe(true);
    expect(exchange.answer('nobody', { v: 'x' })).toBe(false);
    // One answered, one not: the turn asks only what still waits.
    await expect(exchange.turn()).resolves.toEqual({ kind: 'asks', asks: new Map([['sampling-2', sampling]]) });
    exchange.answer('sampling-2', { v: 'b' });
    await expect(exchange.turn()).resolves.toEqual({ kind: 'asks', asks: new Map([['elicitation-3', question]]) });
    exchange.answer('elicitation-3', { v: 'c' });
    await expect(exchange.turn()).resolves.toEqual({ kind: 'done', result: 'a/b/c' });
  });

  it('withdraws waiting questions: the upstream hears the error and the call ends its own way', async () => {
    const exchange = new UpstreamInputExchange<string>();
    const attempt = () => exchange.ask(question).then(() => 'answered', (error: Error) => `gave up: ${error.message}`);
    // The second attempt (a retried upstream call) asks again after the withdrawal and is refused at once.
    exchange.start(async () => `${await attempt()}, then ${await attempt()}`);
    await exchange.turn();
    exchange.withdraw(new Error('too late'));
    await expect(exchange.turn()).resolves.toEqual({ kind: 'done', result: 'gave up: too late, then gave up: too late' });
  });

  it("abandons the agent's side with an error while the call runs on", async () => {
    let finished = false;
    const exchange = new UpstreamInputExchange<string>();
    let release: () => void = () => undefined;
    exchange.start(async () => {
      await new Promise<void>((resolve) => { release = resolve; });
      finished = true;
      return 'late result';
    });
    exchange.abandon('-32021');
    await expect(exchange.turn()).resolves.toEqual({ kind: 'failed', error: '-32021' });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(finished).toBe(true);
    await expect(exchange.turn()).resolves.toEqual({ kind: 'failed', error: '-32021' });
  });
});
