// A Tricktable seat in Go over gRPC, from code generated from the wheel's .proto files.
//
// It joins one seat with its token and answers every decision with the first legal action
// (a Cinq Cents discard: the first `count` cards offered), until the game ends. A refused
// answer is answered again; a dropped stream is rejoined from the last event seen, with
// backoff, as docs/protocol.md section 10 says. It is the smallest complete client a Go
// author can start from; README.md beside it says how to generate the code and build it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tricktablev1 "tricktable.dev/gen/go/tricktable/v1"
)

// Reconnect patience: 12 attempts from 100 ms doubling to 5 s, as the Python SDK.
const attempts = 12

var errGameOver = errors.New("game over")

// seat is one seat's state across streams: what to resume from and what is pending.
type seat struct {
	client   tricktablev1.TableServiceClient
	token    string
	lastSeen *uint64
	pending  *tricktablev1.DecisionRequest
}

func main() {
	server := flag.String("server", "127.0.0.1:50051", "the server's address (host:port)")
	token := flag.String("token", "", "the seat's join token (or TRICKTABLE_TOKEN)")
	flag.Parse()
	if *token == "" {
		*token = os.Getenv("TRICKTABLE_TOKEN")
	}
	if *token == "" {
		fmt.Fprintln(os.Stderr, "error: give the seat's token with --token or TRICKTABLE_TOKEN")
		os.Exit(2)
	}
	// Plain HTTP/2 to a server without TLS (grpc.WithInsecure: Debian's grpc-go predates credentials/insecure).
	conn, err := grpc.Dial(*server, grpc.WithInsecure())
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	defer conn.Close()
	s := &seat{client: tricktablev1.NewTableServiceClient(conn), token: *token}
	if err := s.play(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	fmt.Println("game over")
}

// play runs streams until the game ends, rejoining a dropped one with backoff.
func (s *seat) play() error {
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		progressed, err := s.stream()
		if err == errGameOver {
			return nil
		}
		if code := status.Code(err); code == codes.Unauthenticated || code == codes.NotFound ||
			code == codes.InvalidArgument || code == codes.PermissionDenied {
			return err
		}
		if progressed {
			attempt, wait = 1, 100*time.Millisecond
		}
		if attempt >= attempts {
			return fmt.Errorf("gave up after %d attempts: %v", attempts, err)
		}
		time.Sleep(wait)
		if wait *= 2; wait > 5*time.Second {
			wait = 5 * time.Second
		}
	}
}

// stream plays one Play stream: it says whether the seat was joined on it, and why it ended.
func (s *seat) stream() (bool, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := s.client.Play(ctx)
	if err != nil {
		return false, err
	}
	join := &tricktablev1.Join{Token: s.token, Name: "go-first-legal", AcceptBatches: true, LastSeenSequence: s.lastSeen}
	if err := stream.Send(&tricktablev1.PlayRequest{Kind: &tricktablev1.PlayRequest_Join{Join: join}}); err != nil {
		return false, err
	}
	joined := false
	for {
		response, err := stream.Recv()
		if err == io.EOF {
			return joined, errors.New("the stream ended before the game did")
		}
		if err != nil {
			return joined, err
		}
		if _, ok := response.Kind.(*tricktablev1.PlayResponse_Joined); ok {
			joined = true
		}
		if err := s.handle(stream, response); err != nil {
			stream.CloseSend()
			return joined, err
		}
	}
}

// handle answers decisions, answers again after a rejection, and notices the game's end.
func (s *seat) handle(stream tricktablev1.TableService_PlayClient, response *tricktablev1.PlayResponse) error {
	switch kind := response.Kind.(type) {
	case *tricktablev1.PlayResponse_Batch:
		for _, inner := range kind.Batch.Messages {
			if err := s.handle(stream, inner); err != nil {
				return err
			}
		}
	case *tricktablev1.PlayResponse_Joined:
		sequence := kind.Joined.Sequence
		if s.lastSeen == nil || sequence > *s.lastSeen {
			s.lastSeen = &sequence
		}
	case *tricktablev1.PlayResponse_Event:
		sequence := kind.Event.Sequence
		s.lastSeen = &sequence
		if kind.Event.GetGameEnded() != nil {
			return errGameOver
		}
	case *tricktablev1.PlayResponse_Decision:
		s.pending = kind.Decision
		return s.answer(stream)
	case *tricktablev1.PlayResponse_Accepted:
		if s.pending != nil && s.pending.DecisionId == kind.Accepted.DecisionId {
			s.pending = nil
		}
	case *tricktablev1.PlayResponse_Rejection:
		fmt.Fprintln(os.Stderr, "rejected:", kind.Rejection.Reason, kind.Rejection.Message)
		if s.pending != nil && s.pending.DecisionId == kind.Rejection.DecisionId {
			return s.answer(stream)
		}
	}
	return nil
}

// answer sends the first legal action of the pending decision, or the first cards of a discard choice.
func (s *seat) answer(stream tricktablev1.TableService_PlayClient) error {
	decision := s.pending
	decide := &tricktablev1.Decide{DecisionId: decision.DecisionId}
	if choice := decision.DiscardChoice; choice != nil && len(decision.LegalActions) == 0 {
		// A discard's id is its notation: "discard-" and the chosen cards in the order the choice lists them.
		cards := append([]string{"discard"}, choice.Cards[:choice.Count]...)
		decide.Choice = &tricktablev1.Decide_ActionId{ActionId: strings.Join(cards, "-")}
	} else {
		decide.Choice = &tricktablev1.Decide_ActionId{ActionId: decision.LegalActions[0].Id}
	}
	return stream.Send(&tricktablev1.PlayRequest{Kind: &tricktablev1.PlayRequest_Decide{Decide: decide}})
}
