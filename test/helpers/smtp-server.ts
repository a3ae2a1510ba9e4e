// A real SMTP server (smtp-server) on a loopback port for tests: it takes one login and keeps every
// message it receives, parsed by mailparser, for the test to read.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpServer {
  port: number;
  messages: ParsedMail[];
  /** Resolves with the next message to arrive (or one already there and not yet taken). */
  next(): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(login: { user: string; pass: string }): Promise<SmtpServer> {
  const messages: ParsedMail[] = [];
  let taken = 0;
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    // No TLS on loopback: STARTTLS would offer a certificate nobody trusts.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === login.user && auth.password === login.pass)
        callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          for (const wake of waiting.splice(0)) wake();
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    async next() {
      while (messages.length <= taken) await new Promise<void>((resolve) => waiting.push(resolve));
      return messages[taken++]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
