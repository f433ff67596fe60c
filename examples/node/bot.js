#!/usr/bin/env node
// A Tricktable bot in Node.js, written from docs/protocol.md and the .proto files.
//
// It loads the project's protos at run time from ../../protos (nothing is
// copied or generated), gets a seat (a join token given with --token, or
// SeekGame with --seek GAME), joins it over the bidirectional Play stream and
// answers every decision request with one of its legal actions (a Cinq Cents
// discard: six of the cards its DiscardChoice offers) until the game ends. It
// answers a rejected decision again from the legal actions, and when
// the stream breaks it reconnects with backoff and resumes with the last event
// sequence it saw.
//
// Usage:
//   node bot.js --server HOST:PORT --token TOKEN [--name NAME] [--strategy first|random]
//               [--transport play|watch] [--annotate] [--quiet]
//   node bot.js --server HOST:PORT --seek all_fives [--players 2]
// --transport watch uses the server stream Watch plus the unary SubmitAction instead of Play.
// --annotate sends a note with each answer (Decide.annotation, docs/protocol.md section 7): kept secret by
// the server until the game ends, then in the record beside the move.
// TRICKTABLE_SERVER and TRICKTABLE_TOKEN are read when the flags are missing.
// Exit status: 0 once game_ended was received, 2 for a usage or a fatal call error,
// 3 when the server stayed unreachable.
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'protos');
const PROTO_FILE = 'tricktable/v1/table_service.proto';

// Statuses after which reconnecting cannot help (docs/protocol.md sections 10 and 15).
const FATAL = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.NOT_FOUND,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.PERMISSION_DENIED,
]);
// Rejections after which the decision is no longer ours to answer (section 8).
const NOT_PENDING = new Set([
  'REJECTION_REASON_STALE_DECISION',
  'REJECTION_REASON_NOT_YOUR_TURN',
  'REJECTION_REASON_GAME_OVER',
  'REJECTION_REASON_NOT_STARTED',
]);
const MAX_REANSWERS = 3;
const MAX_ATTEMPTS = 12;

function parseArgs(argv) {
  const args = {
    server: process.env.TRICKTABLE_SERVER || '',
    token: process.env.TRICKTABLE_TOKEN || '',
    seek: '',
    players: 0,
    name: 'node-bot',
    strategy: 'random',
    transport: 'play',
    quiet: false,
    annotate: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = () => {
      i += 1;
      if (i >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[i];
    };
    if (flag === '--server') args.server = value();
    else if (flag === '--token') args.token = value();
    else if (flag === '--seek') args.seek = value();
    else if (flag === '--players') args.players = Number.parseInt(value(), 10);
    else if (flag === '--name') args.name = value();
    else if (flag === '--strategy') args.strategy = value();
    else if (flag === '--transport') args.transport = value();
    else if (flag === '--quiet') args.quiet = true;
    else if (flag === '--annotate') args.annotate = true;
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!args.server) throw new Error('--server HOST:PORT (or TRICKTABLE_SERVER) is required');
  if (!args.token && !args.seek) throw new Error('--token TOKEN, TRICKTABLE_TOKEN or --seek GAME is required');
  if (!['first', 'random'].includes(args.strategy)) throw new Error('--strategy is first or random');
  if (!['play', 'watch'].includes(args.transport)) throw new Error('--transport is play or watch');
  return args;
}

// The protos as @grpc/proto-loader loads them with the settings docs/protocol.md recommends.
function loadDefinition() {
  return protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [PROTO_ROOT],
    keepCase: true, // field names as in the .proto files
    longs: String, // uint64 sequences and int64 times arrive as strings
    enums: String, // enum values by name, e.g. "REJECTION_REASON_STALE_DECISION"
    defaults: true, // absent scalars read as their zero value (seat 0, score 0)
    oneofs: true, // the name of the oneof case that is set, e.g. message.kind === "decision"
  });
}

function loadService() {
  return grpc.loadPackageDefinition(loadDefinition()).tricktable.v1.TableService;
}

// Whether a field is present (docs/protocol.md section 3). With the loader settings above, an `optional`
// scalar that is absent is missing from the object (when present, its synthetic oneof `_name` is set to
// 'name'), and an unset message field is null.
function has(message, field) {
  return message[field] !== undefined && message[field] !== null;
}

// `count` distinct elements of `items`, at random, in their original order.
function sample(items, count) {
  const indexes = items.map((_, i) => i);
  for (let i = indexes.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [indexes[i], indexes[j]] = [indexes[j], indexes[i]];
  }
  return indexes.slice(0, count).sort((a, b) => a - b).map((i) => items[i]);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Where to play a table (section 4): its play_address, else the address called; a wildcard host
// (a server bound to every interface) keeps the host we dialled.
function playTarget(address, playAddress) {
  if (!playAddress) return address;
  const cut = playAddress.lastIndexOf(':');
  const host = playAddress.slice(0, cut);
  if (['0.0.0.0', '::', '[::]', ''].includes(host)) {
    return address.slice(0, address.lastIndexOf(':')) + playAddress.slice(cut);
  }
  return playAddress;
}

class Bot {
  constructor(args, client, connect = null) {
    this.args = args;
    this.client = client;
    this.connect = connect; // address -> a new client, to follow a seek's play_address
    this.token = args.token;
    this.lastSequence = null; // highest event sequence processed: the resume point
    this.result = null;
    this.pending = null; // {decisionId, decision: DecisionRequest, answers}
    this.stats = { joins: 0, decisions: 0, rejections: 0, reconnects: 0, events: 0 };
  }

  log(...parts) {
    if (!this.args.quiet) console.error('[node-bot]', ...parts);
  }

  // An answer to a decision: {name, choice} where choice is {action_id}: one of legal_actions' ids, or
  // for a Cinq Cents discard offered as a DiscardChoice (choose `count` of its `cards`, section 7) the
  // discard's notation, "discard-" and the chosen cards in the order `cards` lists them.
  // `first` forces the first legal action (the first `count` cards of a discard choice).
  choose(decision, first = false) {
    const takeFirst = first || this.args.strategy === 'first';
    if (has(decision, 'discard_choice')) {
      const { cards, count } = decision.discard_choice;
      const chosen = takeFirst ? cards.slice(0, count) : sample(cards, count); // both keep the order of `cards`
      return { name: `discard ${chosen.join(' ')}`, choice: { action_id: ['discard', ...chosen].join('-') } };
    }
    const legal = decision.legal_actions;
    const pick = takeFirst ? legal[0] : legal[Math.floor(Math.random() * legal.length)];
    return { name: pick.name, choice: { action_id: pick.id, ...this.annotation(legal, pick) } };
  }

  // With --annotate, the answer's note (section 7): free text (at most 280 characters) and numbers keyed by
  // legal action id (at most 64, finite), here this bot's chance of picking each action. Over a limit, the
  // server refuses the whole decide with REJECTION_REASON_BAD_ANNOTATION.
  annotation(legal, pick) {
    if (!this.args.annotate) return {};
    const values = {};
    for (const action of legal.slice(0, 64)) values[action.id] = this.args.strategy === 'first' ? 0 : 1 / legal.length;
    if (this.args.strategy === 'first') values[pick.id] = 1;
    return { annotation: { note: `${this.args.strategy} of ${legal.length} legal actions`, values } };
  }

  // Seek a game (section 4): resolves to SeekSeated (token, play_address, ...).
  seek() {
    const game = `GAME_${this.args.seek.toUpperCase()}`;
    return new Promise((resolve, reject) => {
      const call = this.client.SeekGame({ game, players: this.args.players, name: this.args.name });
      let seated = null;
      call.on('data', (message) => {
        if (message.kind === 'waiting') {
          this.log(`seeking ${game}: ${message.waiting.waiting} of ${message.waiting.needed} waiting`);
        } else if (message.kind === 'seated') {
          seated = message.seated;
          this.log(`seated at table ${seated.table_id}, seat ${seated.seat}`);
        }
      });
      call.on('error', reject);
      call.on('end', () => (seated ? resolve(seated) : reject(new Error('the seek ended unseated'))));
    });
  }

  // One seat stream (sections 5-12): Play (bidirectional), or Watch plus unary SubmitAction with
  // --transport watch. Resolves 'ended' after game_ended, 'lost' when the stream broke.
  playOnce() {
    return new Promise((resolve, reject) => {
      const watch = this.args.transport === 'watch';
      const join = { token: this.token, name: this.args.name };
      if (this.lastSequence !== null) join.last_seen_sequence = String(this.lastSequence);
      if (!watch) {
        join.accept_batches = true; // messages ready at once may come as one batch (section 5)
        join.coalesce_events = true; // events only for information may wait for our next decision (section 5)
      }
      const call = watch ? this.client.Watch(join) : this.client.Play();
      let settled = false;
      const finish = (how, error) => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve(how);
      };
      let onMessage = null;
      const answer = (decisionId, { name, choice }) => {
        if (settled) return;
        this.log(`decision ${decisionId}: ${name}`);
        const decide = { decision_id: decisionId, ...choice };
        if (!watch) {
          call.write({ decide });
          return;
        }
        this.client.SubmitAction({ token: this.token, decide }, (error, response) => {
          // A failed submit is not fatal: the stream reports a broken connection, and the pending
          // decision is re-sent after the rejoin.
          if (error) this.log(`submit failed: ${grpc.status[error.code] || error.code} ${error.details || ''}`);
          else if (!settled) onMessage({ kind: response.outcome, [response.outcome]: response[response.outcome] });
        });
      };
      const close = () => (watch ? call.cancel() : call.end());

      if (!watch) call.write({ join });

      onMessage = (message) => {
        switch (message.kind) {
          case 'joined': {
            const joined = message.joined;
            this.stats.joins += 1;
            this.log(`joined table ${joined.table_id} as seat ${joined.seat} at sequence ${joined.sequence}`
              + (this.lastSequence !== null ? ` (resuming after ${this.lastSequence})` : ''));
            // A first join starts from the view: the events after joined.sequence follow.
            if (this.lastSequence === null) this.lastSequence = Number(joined.sequence);
            break;
          }
          case 'event': {
            const event = message.event;
            const sequence = Number(event.sequence);
            if (this.lastSequence !== null && sequence <= this.lastSequence) break; // already seen
            this.lastSequence = sequence;
            this.stats.events += 1;
            if (event.kind === 'game_ended') {
              this.result = event.game_ended.result;
              finish('ended');
              close();
            } else if (event.kind === 'action_timed_out') {
              this.log(`seat ${event.action_timed_out.seat} timed out`);
            }
            break;
          }
          case 'decision': {
            const decision = message.decision;
            this.stats.decisions += 1;
            this.pending = { decisionId: decision.decision_id, decision, answers: 1 };
            answer(decision.decision_id, this.choose(decision));
            break;
          }
          case 'batch':
            // Several messages sent at once (join.accept_batches): handle each in order.
            for (const item of message.batch.messages) onMessage(item);
            break;
          case 'accepted':
            if (this.pending && this.pending.decisionId === message.accepted.decision_id) this.pending = null;
            break;
          case 'rejection': {
            const rejection = message.rejection;
            this.stats.rejections += 1;
            this.log(`rejected ${rejection.decision_id}: ${rejection.reason} (${rejection.message})`);
            const pending = this.pending;
            if (!pending || pending.decisionId !== rejection.decision_id || NOT_PENDING.has(rejection.reason)) {
              if (pending && pending.decisionId === rejection.decision_id) this.pending = null;
              break; // not pending any more: the next decision request will come
            }
            if (pending.answers > MAX_REANSWERS) break; // stop arguing; the clock will decide
            pending.answers += 1;
            // The decision is still pending and nothing changed: answer again, the first legal action
            // after a second refusal.
            answer(pending.decisionId, this.choose(pending.decision, pending.answers > 2));
            break;
          }
          default:
            this.log(`ignoring unknown message ${message.kind}`);
        }
      };
      call.on('data', onMessage);
      call.on('error', (error) => {
        if (settled) return;
        if (FATAL.has(error.code)) finish(null, error);
        else {
          this.log(`stream broke: ${grpc.status[error.code] || error.code} ${error.details || ''}`);
          finish('lost');
        }
      });
      call.on('end', () => finish(this.result ? 'ended' : 'lost'));
    });
  }

  async run() {
    if (!this.token) {
      const seated = await this.seek();
      this.token = seated.token;
      const target = playTarget(this.args.server, seated.play_address);
      if (target !== this.args.server && this.connect) {
        this.client.close();
        this.client = this.connect(target); // the table runs in another process of the server (a shard)
      }
    }
    let failures = 0;
    for (;;) {
      const joinsBefore = this.stats.joins;
      const how = await this.playOnce();
      if (how === 'ended') return this.result;
      failures = this.stats.joins > joinsBefore ? 1 : failures + 1; // a stream that joined restarts the schedule
      if (failures > MAX_ATTEMPTS) {
        const error = new Error(`gave up after ${MAX_ATTEMPTS} reconnect attempts`);
        error.exitCode = 3;
        throw error;
      }
      const delay = Math.min(5000, 100 * 2 ** (failures - 1)) * (1 + 0.2 * Math.random());
      this.stats.reconnects += 1;
      this.log(`reconnecting in ${Math.round(delay)} ms, resuming after sequence ${this.lastSequence}`);
      await sleep(delay);
    }
  }
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`usage error: ${error.message}`);
    return 2;
  }
  const TableService = loadService();
  const connect = (address) =>
    new TableService(address, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': 32 * 1024 * 1024,
    });
  const bot = new Bot(args, connect(args.server), connect);
  try {
    const result = await bot.run();
    console.log(JSON.stringify({ result, stats: bot.stats }));
    return 0;
  } catch (error) {
    console.error(`fatal: ${error.details || error.message}`);
    return error.exitCode || 2;
  } finally {
    bot.client.close();
  }
}

if (require.main === module) {
  main().then((code) => {
    process.exitCode = code;
  });
}

module.exports = { Bot, has, loadDefinition, loadService, parseArgs, playTarget, sample };
