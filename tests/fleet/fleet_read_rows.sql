-- The fleet read tests' rows (tests/fleet/fleet_read.sh): one job (4242) of three ranks on
-- three nodes, rank 1 faulting first, and a core of another job, at fixed times, so the
-- outputs are exact. Written by writer roles of their own; user_name decides who reads them.
INSERT INTO gpucore_fleet.cores (node, store, file, writer, user_name, time_ns, host, pid, uid,
  exe, job, rank, targets, trigger, sig_text, sig_hash, waves, faulting_waves, size, truncated,
  state, indexed_at, error, local_id, synced_at) VALUES
('node-a', '/shared/cores/node-a', 'core.1764000000.node-a.101.app', 'node_a', 'alice',
  1764000000000000000, 'node-a', 101, 1000, '/opt/app/bin/app', '4242', 0, 'gfx90a', 'signal',
  'hang:kernel_x:waiting:co-000000000001', 'aaaaaaaaaaaaaaaa', 64, 0, 1048576, false, 'present',
  1764000001000000000, NULL, 1, '2025-11-24 16:00:02+00'),
('node-b', '/shared/cores/node-b', 'core.1763999999.node-b.202.app', 'node_b', 'alice',
  1763999999000000000, 'node-b', 202, 1000, '/opt/app/bin/app', '4242', 1, 'gfx90a',
  'memory-violation', 'fault:kernel_y:illegal address:co-000000000002', 'bbbbbbbbbbbbbbbb', 64,
  3, 2097152, false, 'present', 1764000001000000000, NULL, 1, '2025-11-24 16:00:02+00'),
('node-c', '/shared/cores/node-c', 'core.1764000002.node-c.303.app', 'node_c', 'alice',
  1764000002000000000, 'node-c', 303, 1000, '/opt/app/bin/app', '4242', 2, 'gfx90a', 'signal',
  'hang:kernel_x:waiting:co-000000000001', 'aaaaaaaaaaaaaaaa', 64, 0, 1048576, true, 'present',
  1764000003000000000, NULL, 1, '2025-11-24 16:00:04+00'),
('node-c', '/shared/cores/node-c', 'core.1764086400.node-c.404.other', 'node_c', 'bob',
  1764086400000000000, 'node-c', 404, 1001, '/usr/bin/other', '5555', NULL, 'gfx942',
  'memory-violation', 'fault:kernel_y:illegal address:co-000000000002', 'bbbbbbbbbbbbbbbb', 8,
  1, 4096, false, 'deleted', 1764086401000000000, NULL, 2, '2025-11-25 16:00:02+00');
