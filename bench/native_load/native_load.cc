// native_load: the throughput bench's first-legal load bots (`python -m bench.server_clients load --many`) in C++.
//
// Why: the Python bots on grpc.aio cost about 100-160 us of CPU per move, on the same two cores as the server, so
// the shard bench could not show what two shards buy. These bots do the same work (parse each message, answer
// every decision with its first legal action) for much less, so nearly every core is the server's.
//
// What it does, exactly as `load --many` (bench/server_clients.py, `load_mode` and `ManyCall`):
// - prints `ready`, reads `go UNTIL START END` (CLOCK_MONOTONIC ns) on stdin, plays until UNTIL;
// - keeps K tables playing (`--tables K`), each slot creating a new table at ADDRESS as soon as its last one ended;
// - every seat of this process plays over ONE PlayMany call per address: a table's four joins go as one message to
//   its `play_address` (a sharded server's shard; empty: ADDRESS), and every decision of a message read is
//   answered in one PlayManyRequest (of a batch, its last message is the one that counts);
// - counts rejections, tables started and finished, failed tables (`errors`), messages read and written;
// - prints one JSON line: those counts, `moves_total`, `moves_in_window` and the `records` answered in
//   [START, END): [table id, decision id, deal number, received ns, answer built ns].
//
// One thread does everything over one completion queue (grpc++'s asynchronous API): each operation's tag is the
// function to run when it completes. Why not a thread per call on the simpler sync API: its threads take turns
// polling the socket and wake one another for each message (two context switches a message), which cost more
// than the rest of the work. One thread also needs no locks.
//
// Usage: native_load ADDRESS [--game twenty_five] [--tables 20] [--batches-only]

#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>
#include <time.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tricktable/v1/table_service.grpc.pb.h"

namespace v1 = tricktable::v1;

namespace {

// CLOCK_MONOTONIC, the clock of every bench process (Python's time.monotonic_ns), so times compare across them.
int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The system-clock deadline of a monotonic instant (gRPC deadlines are wall-clock time points).
std::chrono::system_clock::time_point deadline_at(int64_t monotonic_ns) {
  return std::chrono::system_clock::now() + std::chrono::nanoseconds(monotonic_ns - now_ns());
}

// One answered decision, as the Python bots record it.
struct Record {
  std::string table_id;
  long long decision_id;
  int deal_number;
  int64_t received_ns;
  int64_t sent_ns;
};

// The completion queue and its one thread's loop: every operation started with `op(f)` runs f(ok) when it
// completes. Once stopping, the queue shuts down as soon as no operation is pending.
class Loop {
 public:
  using Done = std::function<void(bool ok)>;

  void* op(Done done) {
    ++pending_;
    return new Done(std::move(done));
  }

  void run() {
    void* tag;
    bool ok;
    while (queue.Next(&tag, &ok)) {
      std::unique_ptr<Done> done(static_cast<Done*>(tag));
      --pending_;
      (*done)(ok);
      if (stopping && pending_ == 0) queue.Shutdown();
    }
  }

  grpc::CompletionQueue queue;
  bool stopping = false;

 private:
  long pending_ = 0;
};

// What the loop, the slots and the calls share: the run's times, its options and its counts.
struct Run {
  Loop loop;
  int64_t until_ns = 0, window_start_ns = 0, window_end_ns = 0;
  bool coalesce = true;
  long tables_started = 0, tables_finished = 0, rejections = 0, errors = 0;
  long messages_read = 0, messages_written = 0, moves_total = 0;
  std::vector<Record> records;

  // A failure once the run is over is the run being stopped (calls cancelled, deadlines passed), not an error.
  bool over() const { return loop.stopping || now_ns() >= until_ns; }
};

// A table played over a PlayMany call: its seats' conversations still open, the rejections they saw, the first
// failure (a conversation closed with an error status, or the call ended), and what to do once all are closed.
struct TableWait {
  std::string table_id;
  int open = 0;
  long rejections = 0;
  grpc::Status failure;  // OK until something failed
  std::function<void(const grpc::Status&, long rejections)> closed;
};

// First-legal bots for many tables' seats over one PlayMany call (the Python ManyCall).
class ManyCall {
 public:
  ManyCall(const std::string& target, Run& run)
      : run_(run), stub_(v1::TableService::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()))),
        block_(new char[kArenaBlock]), arena_(arena_options(block_.get())) {
    stream_ = stub_->AsyncPlayMany(&context_, &run_.loop.queue, run_.loop.op([this](bool ok) {
      if (!ok) return reading_ended();
      writing_ = false;
      flush();
      read();
    }));
  }

  // Join every seat of `created` in one message; `closed` runs once each conversation is closed.
  void play_table(const v1::CreateTableResponse& created, decltype(TableWait::closed) closed) {
    auto table = std::make_shared<TableWait>();
    table->table_id = created.table_id();
    table->closed = std::move(closed);
    if (ended_) return table->closed(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the call ended"), 0);
    v1::PlayManyRequest joins;
    for (const auto& seat : created.seat_tokens()) {
      uint32_t number = next_number_++;
      seats_[number] = table;
      auto* request = joins.add_requests();
      request->set_stream(number);
      auto* join = request->mutable_request()->mutable_join();
      join->set_token(seat.token());
      join->set_accept_batches(true);
      join->set_coalesce_events(run_.coalesce);
    }
    table->open = created.seat_tokens_size();
    write(std::move(joins));
  }

  void cancel() { context_.TryCancel(); }
  bool ended() const { return ended_; }

 private:
  // A message holds some fifty small messages (events, views, cards): it is parsed into an arena emptied before
  // the next read, as one-by-one allocation and freeing would otherwise be most of the work.
  static constexpr size_t kArenaBlock = 1 << 20;

  static google::protobuf::ArenaOptions arena_options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kArenaBlock;
    return options;
  }

  void read() {
    arena_.Reset();
    incoming_ = google::protobuf::Arena::CreateMessage<v1::PlayManyResponse>(&arena_);
    stream_->Read(incoming_, run_.loop.op([this](bool ok) {
      if (!ok) return reading_ended();
      answer(now_ns());
      read();
    }));
  }

  // Every decision of the message answered in one message; rejections counted; closed conversations closed.
  void answer(int64_t arrived) {
    ++run_.messages_read;
    v1::PlayManyRequest answers;
    for (const auto& item : incoming_->responses()) {
      auto found = seats_.find(item.stream());
      if (found == seats_.end()) continue;  // not a number of ours (the server never sends one)
      std::shared_ptr<TableWait> table = found->second;
      if (item.has_closed()) {
        seats_.erase(found);
        close_seat(*table, item.closed().code() == 0 ? grpc::Status::OK
                               : grpc::Status(static_cast<grpc::StatusCode>(item.closed().code()),
                                              item.closed().message()));
        continue;
      }
      const v1::PlayResponse* response = &item.response();
      if (response->has_batch() && response->batch().messages_size() > 0) {
        response = &response->batch().messages(response->batch().messages_size() - 1);
      }
      if (response->has_decision() && response->decision().legal_actions_size() > 0) {
        const auto& decision = response->decision();
        auto* request = answers.add_requests();
        request->set_stream(item.stream());
        auto* decide = request->mutable_request()->mutable_decide();
        decide->set_decision_id(decision.decision_id());
        decide->set_action_id(decision.legal_actions(0).id());
        int64_t sent = now_ns();
        ++run_.moves_total;
        if (sent >= run_.window_start_ns && sent < run_.window_end_ns) {
          run_.records.push_back({table->table_id, std::stoll(decision.decision_id()),
                                  decision.view().deal_number(), arrived, sent});
        }
      } else if (response->has_rejection()) {
        ++table->rejections;
      }
    }
    if (answers.requests_size() > 0) write(std::move(answers));
  }

  // grpc++ takes one write at a time on a stream: the others wait their turn here.
  void write(v1::PlayManyRequest request) {
    if (ended_) return;  // the tables of this call have been failed already
    outbox_.push_back(std::move(request));
    flush();
  }

  void flush() {
    if (writing_ || outbox_.empty() || reads_over_) return;
    writing_ = true;
    ++run_.messages_written;
    stream_->Write(outbox_.front(), run_.loop.op([this](bool ok) {
      outbox_.pop_front();
      writing_ = false;
      if (reads_over_) return finish();
      if (ok) return flush();
      outbox_.clear();  // the call is broken: its read fails too, and ends it
    }));
  }

  // The server ended the call, or it was cancelled: every table still playing on it fails, and once no write
  // is in flight the call's status is collected (Finish must not overlap a write).
  void reading_ended() {
    reads_over_ = true;
    ended_ = true;
    auto open = std::move(seats_);
    seats_.clear();
    for (auto& [number, table] : open) {
      close_seat(*table, grpc::Status(grpc::StatusCode::UNAVAILABLE, "the call ended"));
    }
    if (!writing_) finish();
  }

  void finish() {
    if (finishing_) return;
    finishing_ = true;
    stream_->Finish(&status_, run_.loop.op([](bool) {}));
  }

  static void close_seat(TableWait& table, const grpc::Status& status) {
    if (!status.ok() && table.failure.ok()) table.failure = status;
    if (--table.open == 0) table.closed(table.failure, table.rejections);
  }

  Run& run_;
  std::unique_ptr<v1::TableService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<v1::PlayManyRequest, v1::PlayManyResponse>> stream_;
  std::unique_ptr<char[]> block_;
  google::protobuf::Arena arena_;
  v1::PlayManyResponse* incoming_ = nullptr;  // on arena_
  std::deque<v1::PlayManyRequest> outbox_;
  bool writing_ = true;  // until the call has started
  bool reads_over_ = false, ended_ = false, finishing_ = false;
  grpc::Status status_;
  std::unordered_map<uint32_t, std::shared_ptr<TableWait>> seats_;  // open conversations by number
  uint32_t next_number_ = 1;
};

// The process's tables: K slots, each a table at a time; the PlayMany call of each address.
class Load {
 public:
  Load(std::string address, v1::Game game, Run& run)
      : address_(std::move(address)), game_(game), run_(run),
        control_(v1::TableService::NewStub(grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()))) {}

  // Start `tables` slots and an alarm at UNTIL, then run the loop until everything has ended.
  void run(int tables) {
    slots_.resize(tables);
    for (auto& slot : slots_) create(slot);
    grpc::Alarm alarm;
    alarm.Set(&run_.loop.queue, deadline_at(run_.until_ns), run_.loop.op([this](bool) { stop(); }));
    run_.loop.run();
  }

  std::string result() const {
    std::string out = "{\"tables_started\": " + std::to_string(run_.tables_started) +
                      ", \"tables_finished\": " + std::to_string(run_.tables_finished) +
                      ", \"rejections\": " + std::to_string(run_.rejections) +
                      ", \"errors\": " + std::to_string(run_.errors) +
                      ", \"messages\": " + std::to_string(run_.messages_read) +
                      ", \"messages_sent\": " + std::to_string(run_.messages_written) +
                      ", \"moves_total\": " + std::to_string(run_.moves_total) +
                      ", \"moves_in_window\": " + std::to_string(run_.records.size()) + ", \"records\": [";
    for (size_t i = 0; i < run_.records.size(); ++i) {
      const Record& r = run_.records[i];
      out += (i ? ", [" : "[") + json_string(r.table_id) + ", " + std::to_string(r.decision_id) + ", " +
             std::to_string(r.deal_number) + ", " + std::to_string(r.received_ns) + ", " + std::to_string(r.sent_ns) +
             "]";
    }
    return out + "]}";
  }

 private:
  // A slot's CreateTable call in flight.
  struct Slot {
    std::unique_ptr<grpc::ClientContext> context;
    v1::CreateTableResponse created;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateTableResponse>> call;
  };

  // A new table for `slot`, then its seats played; again when it ends, until the run is over.
  void create(Slot& slot) {
    if (run_.over()) return;
    slot.context = std::make_unique<grpc::ClientContext>();
    slot.context->set_deadline(deadline_at(run_.until_ns));
    v1::CreateTableRequest request;
    request.set_game(game_);
    slot.call = control_->AsyncCreateTable(slot.context.get(), request, &run_.loop.queue);
    slot.call->Finish(&slot.created, &slot.status, run_.loop.op([this, &slot](bool) {
      if (!slot.status.ok()) {
        if (!run_.over()) ++run_.errors;
        return;  // as a Python slot whose CreateTable fails, the slot ends (counted here)
      }
      ++run_.tables_started;
      if (run_.over()) return;
      call_at(slot.created.play_address().empty() ? address_ : slot.created.play_address())
          .play_table(slot.created, [this, &slot](const grpc::Status& status, long rejections) {
            if (status.ok()) {
              ++run_.tables_finished;
              run_.rejections += rejections;
            } else if (!run_.over()) {
              ++run_.errors;
            }
            create(slot);
          });
    }));
  }

  // The PlayMany call to `target`: the open one, or a new one when there is none or it ended.
  ManyCall& call_at(const std::string& target) {
    auto found = by_target_.find(target);
    if (found != by_target_.end() && !found->second->ended()) return *found->second;
    calls_.push_back(std::make_unique<ManyCall>(target, run_));
    by_target_[target] = calls_.back().get();
    return *calls_.back();
  }

  // UNTIL: every call cancelled (their tables then fail, uncounted); CreateTable calls end at their deadline.
  void stop() {
    run_.loop.stopping = true;
    for (auto& call : calls_) call->cancel();
  }

  static std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += c;
      }
    }
    return out + "\"";
  }

  std::string address_;
  v1::Game game_;
  Run& run_;
  std::unique_ptr<v1::TableService::Stub> control_;  // CreateTable, at ADDRESS
  std::deque<Slot> slots_;  // a deque: a slot never moves while its calls refer to it
  std::vector<std::unique_ptr<ManyCall>> calls_;  // every call opened (ended ones too, until the process ends)
  std::map<std::string, ManyCall*> by_target_;
};

int usage(const std::string& why) {
  std::fprintf(stderr, "native_load: %s\nusage: native_load ADDRESS [--game twenty_five] [--tables 20] "
                       "[--batches-only]\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("the server's address is required");
  std::string address = argv[1], game_name = "twenty_five";
  int tables = 20;
  Run run;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--game" && i + 1 < argc) {
      game_name = argv[++i];
    } else if (arg == "--tables" && i + 1 < argc) {
      tables = std::atoi(argv[++i]);
    } else if (arg == "--batches-only") {
      run.coalesce = false;
    } else {
      return usage("unknown argument " + arg);
    }
  }
  std::string enum_name = "GAME_" + game_name;
  std::transform(enum_name.begin(), enum_name.end(), enum_name.begin(), [](unsigned char c) { return std::toupper(c); });
  v1::Game game;
  if (!v1::Game_Parse(enum_name, &game) || game == v1::GAME_UNSPECIFIED) return usage("unknown game " + game_name);
  if (tables < 1) return usage("--tables must be at least 1");

  std::cout << "ready" << std::endl;
  std::string word;
  if (!(std::cin >> word >> run.until_ns >> run.window_start_ns >> run.window_end_ns) || word != "go") {
    return usage("expected `go UNTIL START END` on stdin");
  }
  Load load(address, game, run);
  load.run(tables);
  std::cout << load.result() << std::endl;
  return 0;
}
