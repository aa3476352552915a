// Live chat on a MongoDB change stream: every message inserted into (or updated in) chat.messages
// is pushed to every connected browser over socket.io.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const express = require('express');
const { MongoClient } = require('mongodb');
const { Server } = require('socket.io');

// A tiny .env loader: KEY=VALUE lines, # comments, optional quotes. Like dotenv, it never
// overrides a variable that is already set in the environment.
function loadDotEnv(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return;
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    if (process.env[key] === undefined) process.env[key] = value;
  }
}

loadDotEnv(path.join(__dirname, '.env'));
const uri = process.env.MONGODB_URI || 'mongodb://localhost:27017/?replicaSet=rs0';
const port = Number(process.env.PORT || 3000);

const app = express();
const server = http.createServer(app);
const io = new Server(server);

app.get('/', (req, res) => {
  res.sendFile(path.join(__dirname, 'index.html'));
});

io.on('connection', (socket) => {
  console.log(`browser connected (${socket.id})`);
  socket.on('disconnect', () => console.log(`browser disconnected (${socket.id})`));
});

async function main() {
  const client = new MongoClient(uri);
  await client.connect();
  const messages = client.db('chat').collection('messages');

  const changeStream = messages.watch();
  // The first resume token arrives with the server's reply to the watch: from then on no change
  // is missed.
  changeStream.once('resumeTokenChanged', () => console.log('change stream open on chat.messages'));
  changeStream.on('change', (change) => {
    if (change.operationType === 'insert') {
      io.emit('message', change.fullDocument.message);
    } else if (change.operationType === 'update') {
      const updated = change.updateDescription.updatedFields.message;
      if (updated !== undefined) io.emit('message', updated);
    }
  });
  changeStream.on('error', (err) => {
    console.error('change stream error:', err);
    process.exit(1);
  });

  server.listen(port, () => {
    console.log(`chat listening on http://localhost:${port}`);
  });

  const shutdown = async () => {
    await changeStream.close().catch(() => {});
    await client.close().catch(() => {});
    io.close();
    server.close(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
