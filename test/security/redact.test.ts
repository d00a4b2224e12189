import { BSON } from 'mongodb';
import {
  containsSecret,
  MASK,
  redactCommand,
  redactText,
  redactUri,
  secretForms,
} from '../../lib/security/redact';

describe('redactUri', () => {
  it.each([
    ['mongodb://alice:s3cret@db1:27017/', 'mongodb://alice:****@db1:27017/'],
    [
      'mongodb+srv://alice:s3cret@cluster0.example.net/app?retryWrites=true',
      'mongodb+srv://alice:****@cluster0.example.net/app?retryWrites=true',
    ],
    [
      'mongodb://alice:s3cret@h1:1,h2:2,h3:3/?replicaSet=rs0',
      'mongodb://alice:****@h1:1,h2:2,h3:3/?replicaSet=rs0',
    ],
    // '@' and ':' in a password, percent-encoded as the spec demands
    ['mongodb://alice:p%40ss%3Aw%2Frd@db1/', 'mongodb://alice:****@db1/'],
    // and written raw by someone in a hurry: still all of it goes
    ['mongodb://alice:p@ss:w/rd?x@db1:27017/admin', 'mongodb://alice:****@db1:27017/admin'],
    // no password: nothing to hide, the user name stays
    [
      'mongodb://alice@db1/?authMechanism=MONGODB-X509',
      'mongodb://alice@db1/?authMechanism=MONGODB-X509',
    ],
    [
      'mongodb://db1:27017,db2:27017/?replicaSet=rs0',
      'mongodb://db1:27017,db2:27017/?replicaSet=rs0',
    ],
    ['mongodb://[::1]:27017/', 'mongodb://[::1]:27017/'],
    ['mongodb://u:pw@[::1]:27017/', 'mongodb://u:****@[::1]:27017/'],
    // socket path host
    [
      'mongodb://u:pw@%2Ftmp%2Fmongodb-27017.sock/',
      'mongodb://u:****@%2Ftmp%2Fmongodb-27017.sock/',
    ],
    [
      'mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:abc123',
      'mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=****',
    ],
    [
      'mongodb://h/?tls=true&tlsCertificateKeyFilePassword=keypw&appName=x',
      'mongodb://h/?tls=true&tlsCertificateKeyFilePassword=****&appName=x',
    ],
    ['mongodb://h/?sslPEMKeyPassword=keypw', 'mongodb://h/?sslPEMKeyPassword=****'],
    [
      'mongodb://h/?password=pw&TLSCertificateKeyFilePassword=kp',
      'mongodb://h/?password=****&TLSCertificateKeyFilePassword=****',
    ],
    ['MONGODB://u:pw@h/', 'MONGODB://u:****@h/'],
  ])('%s', (uri, expected) => {
    expect(redactUri(uri)).toBe(expected);
  });

  it('redacts every URI inside longer text (error messages, logs) and leaves the rest alone', () => {
    const text =
      'connect to "mongodb://alice:first@h1:27017/" failed; retried mongodb+srv://bob:second@c.example.net/?appName=x\n' +
      "then 'mongodb://carol:third@h2/?tlsCertificateKeyFilePassword=fourth': timeout";
    const out = redactUri(text);
    for (const secret of ['first', 'second', 'third', 'fourth']) expect(out).not.toContain(secret);
    expect(out).toContain(
      'connect to "mongodb://alice:****@h1:27017/" failed; retried mongodb+srv://bob:****@c.example.net/?appName=x\n',
    );
    expect(out).toContain("'mongodb://carol:****@h2/?tlsCertificateKeyFilePassword=****': timeout");
  });

  it('leaves text without URIs unchanged', () => {
    expect(redactUri('user alice logged in at 10:00 @ host')).toBe(
      'user alice logged in at 10:00 @ host',
    );
  });
});

describe('redactText', () => {
  it('removes a known password in every form it takes: raw, percent-encoded, JSON-escaped', () => {
    const password = 'p@ss:w/rd "x" 100%';
    const text = [
      `--password ${password}`,
      `uri=mongodb://h/?other=${encodeURIComponent(password)}`,
      `lower ${encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`,
      `json ${JSON.stringify({ pwd: password })}`,
    ].join('\n');
    const out = redactText(text, [password]);
    expect(containsSecret(out, [password])).toBeUndefined();
    expect(out).toContain(`--password ${MASK}`);
    expect(out).toContain('json {"pwd":"****"}');
  });

  it('removes every line of a keyfile, the URI credentials too, and ignores empty secrets', () => {
    const keyfile = 'AAAABBBBCCCCDDDDEEEE\nFFFFGGGGHHHHIIIIJJJJ\n';
    const out = redactText(
      'key AAAABBBBCCCCDDDDEEEE and FFFFGGGGHHHHIIIIJJJJ at mongodb://u:pw@h/',
      [keyfile, '', undefined],
    );
    expect(out).toBe('key **** and **** at mongodb://u:****@h/');
  });

  it('lists the forms of a secret longest first', () => {
    const forms = secretForms("a'b c");
    expect(forms).toEqual(expect.arrayContaining(["a'b c", "a'b%20c", 'a%27b%20c']));
    expect([...forms].sort((a, b) => b.length - a.length)).toEqual(forms);
    expect(secretForms('')).toEqual([]);
  });
});

describe('redactCommand', () => {
  it('masks createUser and updateUser passwords and keeps the rest', () => {
    const cmd = { createUser: 'admin', pwd: 'hunter2', roles: [{ role: 'root', db: 'admin' }] };
    expect(redactCommand(cmd)).toEqual({
      createUser: 'admin',
      pwd: MASK,
      roles: [{ role: 'root', db: 'admin' }],
    });
    expect(cmd.pwd).toBe('hunter2'); // a copy, the original is untouched
    expect(redactCommand({ updateUser: 'admin', pwd: 'x', digestPassword: true })).toEqual({
      updateUser: 'admin',
      pwd: MASK,
      digestPassword: true,
    });
  });

  it('masks SASL payloads and speculative authentication', () => {
    const payload = new BSON.Binary(Buffer.from('n,,n=admin,r=abc'));
    expect(
      redactCommand({ saslStart: 1, mechanism: 'SCRAM-SHA-256', payload, autoAuthorize: 1 }),
    ).toEqual({
      saslStart: 1,
      mechanism: 'SCRAM-SHA-256',
      payload: MASK,
      autoAuthorize: 1,
    });
    expect(redactCommand({ saslContinue: 1, conversationId: 1, payload })).toEqual({
      saslContinue: 1,
      conversationId: 1,
      payload: MASK,
    });
    expect(redactCommand({ hello: 1, speculativeAuthenticate: { saslStart: 1, payload } })).toEqual(
      { hello: 1, speculativeAuthenticate: MASK },
    );
    expect(
      redactCommand({ authenticate: 1, user: 'u', nonce: 'n', key: 'k', mechanism: 'MONGODB-CR' }),
    ).toEqual({
      authenticate: 1,
      user: MASK,
      nonce: MASK,
      key: MASK,
      mechanism: MASK,
    });
  });

  it('redacts URIs and known secrets in nested values, and keeps BSON values and shard keys', () => {
    const id = new BSON.ObjectId();
    const cmd = {
      addShard: 'rs1/h1:27018',
      note: ['mongodb://u:pw@h/', { deep: 'token is hunter2' }],
      key: { _id: 'hashed' },
      _id: id,
      tlsCertificateKeyFilePassword: 'kp',
    };
    const out = redactCommand(cmd, ['hunter2']);
    expect(out).toEqual({
      addShard: 'rs1/h1:27018',
      note: ['mongodb://u:****@h/', { deep: 'token is ****' }],
      key: { _id: 'hashed' },
      _id: id,
      tlsCertificateKeyFilePassword: MASK,
    });
    expect(out._id).toBe(id);
  });
});
