/**
 * `mongo-bench agent --print-k8s-job N`: a Kubernetes Indexed Job of N agents, each named after its
 * completion index and running one run (--once). The control URI and the target's credentials come
 * from a Secret the user creates; nothing else needs to run in the cluster.
 */
export interface K8sJobOptions {
  agents: number;
  image: string;
  /** Name of the Job, and prefix of the agents' names. */
  name: string;
  /** The Secret holding CONTROL_URI (and optionally MONGO_BENCH_USER / MONGO_BENCH_PASSWORD). */
  secret: string;
  version: string;
}

export function renderK8sJob(o: K8sJobOptions): string {
  const secretEnv = (name: string, optional: boolean) =>
    [
      `            - name: ${name}`,
      `              valueFrom:`,
      `                secretKeyRef: { name: ${o.secret}, key: ${name}${optional ? ', optional: true' : ''} }`,
    ].join('\n');
  return `# ${o.agents} mongo-bench agents as a Kubernetes Indexed Job (mongo-bench ${o.version}).
# Create the Secret first (the control database URI; the target's credentials if it needs some):
#   kubectl create secret generic ${o.secret} --from-literal=CONTROL_URI='mongodb://...' \\
#     [--from-literal=MONGO_BENCH_USER=... --from-literal=MONGO_BENCH_PASSWORD=...]
# then: kubectl apply -f this.yaml, and on any machine that reaches the control database:
#   mongo-bench run --agents ${o.agents} --control-uri 'mongodb://...' --uri 'mongodb://...' ...
# Each pod runs one run (--once) and ends; the coordinator must run the same mongo-bench version.
apiVersion: batch/v1
kind: Job
metadata:
  name: ${o.name}
spec:
  completionMode: Indexed
  completions: ${o.agents}
  parallelism: ${o.agents}
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: agent
          image: ${o.image}
          command: ["sh", "-c"]
          args:
            - exec npx --yes mongo-bench@${o.version} agent --once --control-uri "$CONTROL_URI" --name "${o.name}-$JOB_COMPLETION_INDEX"
          env:
${secretEnv('CONTROL_URI', false)}
${secretEnv('MONGO_BENCH_USER', true)}
${secretEnv('MONGO_BENCH_PASSWORD', true)}
`;
}
