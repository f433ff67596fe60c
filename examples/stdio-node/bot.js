#!/usr/bin/env node
// A Tricktable bot in Node.js with no packages: JSON lines in on stdin, answers out on stdout.
// Every message is one JSON object on one line (docs/bots-any-language.md). This bot answers
// each decision with a random legal action; put your own choice in choose().
"use strict";
const readline = require("node:readline");

function choose(decision) {
  // decision.view holds the hand, the current trick, the scores...; decision.legal the actions.
  const legal = decision.legal;
  return legal[Math.floor(Math.random() * legal.length)].id;
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    console.error(`playing ${message.game} in seat ${message.seat}`);
  } else if (message.type === "decision") {
    const answer = { decision: message.decision, action: choose(message) };
    process.stdout.write(JSON.stringify(answer) + "\n");
  } else if (message.type === "error") {
    console.error(`my answer was refused: ${message.message}`);
  } else if (message.type === "end") {
    lines.close();
  }
});
