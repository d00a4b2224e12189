/**
 * kill, terminate and restart act on a member's process, so only on a deployment mongo-bench launched
 * (--bin-dir, --mongod-bin, a planned topology): refused before anything starts on an existing deployment
 * (--uri: mongo-bench did not start its processes and never signals them) and on the embedded server
 * (mongodb-memory-server owns its processes). On a launched one each event's member is read against the
 * planned topology now (lib/server/members.ts), so a member that is not there is bad input, not a failed
 * event in the middle of a run.
 */
import { UsageError } from '../../config/errors';
import { memberLayout } from '../../deployment/members';
import type { TargetPlan } from '../../deployment/plan';
import { chooseMember } from '../../server/members';
import { MEMBER_ACTIONS, type BackgroundEventSpec } from '../scenarios/event-spec';
import type { RunOptions } from './run-options';

const WHERE: Record<TargetPlan['kind'], string> = {
  uri: 'this deployment was given with --uri: mongo-bench did not start its processes and never signals them',
  embedded:
    "the embedded server is mongodb-memory-server's to start and stop: launch the deployment from its plan with --bin-dir or --mongod-bin instead",
  launched: '',
};

/** Refuses member events the target cannot take (exit 2), naming the option and the event. */
export function checkMemberEvents(
  options: Pick<RunOptions, 'events' | 'scenarios'>,
  target: TargetPlan,
): void {
  const groups: {
    option: 'events' | 'scenarios';
    events: readonly BackgroundEventSpec[];
    path: (i: number) => (string | number)[];
  }[] = [
    { option: 'events', events: options.events ?? [], path: (i) => [i] },
    ...(options.scenarios ?? []).map((s, n) => ({
      option: 'scenarios' as const,
      events: s.events,
      path: (i: number) => [n, 'events', i],
    })),
  ];
  for (const { option, events, path } of groups)
    events.forEach((event, i) => {
      if (!MEMBER_ACTIONS.has(event.action) || !('member' in event)) return;
      if (target.kind !== 'launched')
        throw new UsageError(
          `${event.action} acts on a member's process of a deployment mongo-bench launched; ${WHERE[target.kind]}`,
          { option, path: path(i) },
        );
      const choice = chooseMember(event.member, memberLayout(target.plan.topology));
      if (typeof choice === 'string')
        throw new UsageError(`${choice} (${target.plan.topology.name})`, {
          option,
          path: path(i),
        });
    });
}
