// The demo's story on a FakeClock: what it creates at start, when the Deployment rolls and to what,
// that it leaves existing objects alone, and that stop() cancels its timer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { Catalog } from '../../src/demo/server/catalog';
import { ObjectStore } from '../../src/demo/store';
import { FIRST_ROLLOUT_MS, ROLLOUT_EVERY_MS, ROLLOUT_IMAGES, startStory } from '../../src/demo/story';

function setup() {
  const store = new ObjectStore();
  new Catalog(store).registerBuiltins();
  return { store, clock: new FakeClock() };
}
const probe = (store: ObjectStore) => store.get('', 'pods', 'story', 'probe-me')!;
const image = (store: ObjectStore) => (store.get('apps', 'deployments', 'story', 'shop')!.spec as any).template.spec.containers[0].image as string;

describe('the demo story', () => {
  it('creates the story namespace, deployment, job, cronjob and probe-me', () => {
    const { store, clock } = setup();
    const story = startStory(store, { clock });
    assert.ok(store.get('', 'namespaces', undefined, 'story'));
    assert.ok(store.get('batch', 'jobs', 'story', 'report'));
    assert.equal((store.get('batch', 'cronjobs', 'story', 'tick')!.spec as any).schedule, '* * * * *');
    const probe = store.get('', 'pods', 'story', 'probe-me')!;
    assert.equal((probe.spec as any).containers[0].livenessProbe.httpGet.port, 8081);
    assert.equal(image(store), ROLLOUT_IMAGES[0]);
    story.stop();
    assert.equal(clock.pendingTimers(), 0, 'stop cancels the rollout timer');
  });

  it(`rolls ${FIRST_ROLLOUT_MS} ms after start, then every ${ROLLOUT_EVERY_MS} ms, between the two images`, async () => {
    const { store, clock } = setup();
    const story = startStory(store, { clock });
    const gen = () => store.get('apps', 'deployments', 'story', 'shop')!.metadata.generation;
    await clock.advance(FIRST_ROLLOUT_MS - 1);
    assert.equal(story.rollouts, 0);
    assert.equal(gen(), 1);
    await clock.advance(1);
    assert.equal(story.rollouts, 1);
    assert.equal(image(store), ROLLOUT_IMAGES[1]);
    // kubectl apply made it, kubectl set image changed the template's image: each its field manager's.
    const managers = (store.get('apps', 'deployments', 'story', 'shop')!.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
    assert.deepEqual(managers, ['kubectl-client-side-apply', 'kubectl-set']);
    assert.equal((probe(store).metadata.managedFields as { manager: string }[])[0]!.manager, 'kubectl-client-side-apply');
    assert.equal(gen(), 2, 'a template change is a spec change');
    assert.match(store.get('apps', 'deployments', 'story', 'shop')!.metadata.annotations!['kubernetes.io/change-cause']!, /nginx:1\.28/);
    await clock.advance(ROLLOUT_EVERY_MS);
    assert.equal(story.rollouts, 2);
    assert.equal(image(store), ROLLOUT_IMAGES[0]);
    story.stop();
    await clock.advance(ROLLOUT_EVERY_MS);
    assert.equal(story.rollouts, 2, 'no rollout after stop');
  });

  it('leaves objects that exist alone, and survives a deleted Deployment', async () => {
    const { store, clock } = setup();
    const errors: unknown[] = [];
    const first = startStory(store, { clock, onError: (e) => errors.push(e) });
    first.stop();
    const rv = store.get('batch', 'jobs', 'story', 'report')!.metadata.resourceVersion;
    const again = startStory(store, { clock, onError: (e) => errors.push(e) });
    assert.equal(store.get('batch', 'jobs', 'story', 'report')!.metadata.resourceVersion, rv);
    store.delete('apps', 'deployments', 'story', 'shop');
    await clock.advance(FIRST_ROLLOUT_MS + ROLLOUT_EVERY_MS);
    assert.equal(again.rollouts, 0);
    assert.deepEqual(errors, []);
    again.stop();
  });
});
