import { containerIdOf } from '../pleg/generic';
import { allContainerStatuses, type ContainerStateTerminated, type Pod } from '../../kube/objects/pod';

/**
 * Why a container stopped, from its terminated state as the runtime reports it:
 *
 *   reason OOMKilled          -> 'OOMKilled' (the kernel killed it for memory; never a probe)
 *   exit code 0               -> 'Completed'
 *   exit code 137 or 143      -> 'Killed' (SIGKILL / SIGTERM: 128 + signal; what a kubelet kill
 *                                 leaves, after the grace period or at once)
 *   any other exit code       -> 'Error'
 *
 * Only 'Killed' can be the kubelet's liveness (or startup) kill, and even then the workstation
 * cannot know who sent the signal: a restart is attributed to liveness from the exit code only as
 * an inference (the Killing Event, when seen, says it outright).
 */
export type ExitCause = 'OOMKilled' | 'Completed' | 'Killed' | 'Error';

export function exitCause(t: Pick<ContainerStateTerminated, 'exitCode' | 'reason' | 'signal'>): ExitCause {
  if (t.reason === 'OOMKilled') return 'OOMKilled';
  if (t.exitCode === 0) return 'Completed';
  if (t.exitCode === 137 || t.exitCode === 143 || t.signal === 9 || t.signal === 15) return 'Killed';
  return 'Error';
}

/** For logs and the timeline: `exitCode=137 reason="Error" cause=Killed`. */
export function describeExit(t: Pick<ContainerStateTerminated, 'exitCode' | 'reason' | 'signal'>): string {
  return `exitCode=${t.exitCode}${t.reason ? ` reason=${JSON.stringify(t.reason)}` : ''} cause=${exitCause(t)}`;
}

/** The terminated state of the container `containerID` names in the pod's status, described (`probe-me: exitCode=137 ...`). */
export function exitOf(pod: Pod, containerID: string): string | undefined {
  for (const c of allContainerStatuses(pod)) {
    for (const t of [c.state?.terminated, c.lastState?.terminated]) {
      if (t && (t.containerID ? containerIdOf(t.containerID) === containerID : c.containerID && containerIdOf(c.containerID) === containerID)) {
        return `${c.name}: ${describeExit(t)}`;
      }
    }
  }
  return undefined;
}

/**
 * The name of the container whose instance `containerID` is (running, terminated or the last
 * terminated one), so a restart mark can name what to read the previous instance's logs of.
 */
export function containerNameOf(pod: Pod, containerID: string): string | undefined {
  for (const c of allContainerStatuses(pod)) {
    for (const id of [c.containerID, c.state?.terminated?.containerID, c.lastState?.terminated?.containerID]) {
      if (id && containerIdOf(id) === containerID) return c.name;
    }
  }
  return undefined;
}
