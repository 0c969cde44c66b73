#!/usr/bin/env node
// Committed so that npm can link the command before `npm ci` has built dist/ (prepare runs after linking).
import "../dist/src/cli.js";
