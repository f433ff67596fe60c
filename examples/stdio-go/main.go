// A Tricktable bot in Go, standard library only: JSON lines in on stdin, answers out on stdout.
//
// Every message is one JSON object on one line (docs/bots-any-language.md). This bot
// answers each decision with a random legal action, seeded by TRICKTABLE_SEED so that
// a game can be played again; put your own choice in choose().
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
)

// Message is any message of the protocol; only the fields this bot reads are declared.
type Message struct {
	Type     string `json:"type"`
	Game     string `json:"game"`
	Seat     int    `json:"seat"`
	Decision int    `json:"decision"`
	Message  string `json:"message"`
	Legal    []struct {
		ID string `json:"id"`
	} `json:"legal"`
	View json.RawMessage `json:"view"` // the hand, the current trick, the scores...
}

// Answer is the reply to a decision: the id of one legal action.
type Answer struct {
	Decision int    `json:"decision"`
	Action   string `json:"action"`
}

func choose(rng *rand.Rand, m *Message) string {
	return m.Legal[rng.Intn(len(m.Legal))].ID
}

func main() {
	seed := fnv.New64a()
	seed.Write([]byte(os.Getenv("TRICKTABLE_SEED")))
	rng := rand.New(rand.NewSource(int64(seed.Sum64())))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20) // a view can be longer than the default 64 KiB line
	out := json.NewEncoder(os.Stdout)      // one object per line, written at once (os.Stdout is unbuffered)
	for in.Scan() {
		var m Message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "unreadable message:", err)
			continue
		}
		switch m.Type {
		case "hello":
			fmt.Fprintf(os.Stderr, "playing %s in seat %d\n", m.Game, m.Seat)
		case "decision":
			if err := out.Encode(Answer{Decision: m.Decision, Action: choose(rng, &m)}); err != nil {
				os.Exit(1)
			}
		case "error":
			fmt.Fprintln(os.Stderr, "my answer was refused:", m.Message)
		case "end":
			return
		}
	}
}
