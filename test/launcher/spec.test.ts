import { formatCommandLine, redactArgs } from '../../lib/launcher/command-line';
import { effectiveArgs, stopTier, type ProcessSpec } from '../../lib/launcher/spec';

describe('effectiveArgs', () => {
  const spec: ProcessSpec = {
    name: 'a',
    kind: 'mongod',
    args: ['--replSet', 'rs0'],
    host: '127.0.0.1',
    port: 27018,
    dbPath: '/d/a',
    logPath: '/l/a.log',
  };

  it('adds port, bind_ip, dbpath and logpath when the plan left them out', () => {
    expect(effectiveArgs(spec)).toEqual([
      '--replSet',
      'rs0',
      '--port',
      '27018',
      '--bind_ip',
      '127.0.0.1',
      '--dbpath',
      '/d/a',
      '--logpath',
      '/l/a.log',
    ]);
  });

  it('keeps what the args already say (either spelling) and never adds --dbpath to mongos', () => {
    expect(
      effectiveArgs({
        ...spec,
        args: ['--port=27018', '--bind_ip_all', '--dbpath', '/d/a', '--logpath=/l/a.log'],
      }),
    ).toEqual(['--port=27018', '--bind_ip_all', '--dbpath', '/d/a', '--logpath=/l/a.log']);
    expect(
      effectiveArgs({
        ...spec,
        kind: 'mongos',
        args: ['--configdb', 'cfg/h:1'],
        logPath: undefined,
      }),
    ).toEqual(['--configdb', 'cfg/h:1', '--port', '27018', '--bind_ip', '127.0.0.1']);
  });

  it('orders shutdown mongos, shards, config servers', () => {
    expect([
      stopTier({ kind: 'mongos', args: [] }),
      stopTier({ kind: 'mongod', args: ['--shardsvr'] }),
      stopTier({ kind: 'mongod', args: ['--configsvr'] }),
    ]).toEqual([0, 1, 2]);
  });
});

describe('command lines for the log', () => {
  it('removes secrets in both option spellings, in setParameter and in URIs', () => {
    expect(
      redactArgs([
        '--tlsCertificateKeyFilePassword',
        'hunter2',
        '--kmipClientCertificatePassword=hunter3',
        '--setParameter',
        'ldapQueryPassword=hunter4',
        '--setParameter=authenticationMechanisms=SCRAM-SHA-256',
        '--configdb',
        'mongodb://admin:hunter5@h:1',
        '--keyFile',
        '/k/key',
      ]),
    ).toEqual([
      '--tlsCertificateKeyFilePassword',
      '<redacted>',
      '--kmipClientCertificatePassword=<redacted>',
      '--setParameter',
      'ldapQueryPassword=<redacted>',
      '--setParameter=authenticationMechanisms=SCRAM-SHA-256',
      '--configdb',
      'mongodb://<redacted>@h:1',
      '--keyFile',
      '/k/key',
    ]);
  });

  it('quotes for a POSIX shell only where needed', () => {
    expect(
      formatCommandLine('/opt/mongo bin/mongod', ['--port', '1', '--setParameter', "x=it's"]),
    ).toBe(`'/opt/mongo bin/mongod' --port 1 --setParameter 'x=it'\\''s'`);
  });
});
