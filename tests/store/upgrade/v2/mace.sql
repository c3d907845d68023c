PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE runs (
  id TEXT PRIMARY KEY NOT NULL,           -- run ID; sorts by submission time
  state TEXT NOT NULL CHECK (state IN (
    'queued', 'running', 'passed', 'failed', 'planning_failed', 'budget_exceeded',
    'checksum_mismatch', 'unsupported_core', 'error', 'cancelled')),
  reason TEXT NOT NULL DEFAULT '',        -- why the run ended as it did
  spec_json TEXT NOT NULL DEFAULT '{}',   -- the normalised spec, defaults filled
  core TEXT NOT NULL DEFAULT '',
  mesh_x INTEGER NOT NULL DEFAULT 1,
  mesh_y INTEGER NOT NULL DEFAULT 1,
  objective TEXT NOT NULL DEFAULT '',
  workloads_json TEXT NOT NULL DEFAULT '[]',  -- JSON array of gate workload names
  backend TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  max_iterations INTEGER NOT NULL DEFAULT 0,
  max_usd REAL NOT NULL DEFAULT 0,
  max_wall_s INTEGER NOT NULL DEFAULT 0,
  submitted_by_uid INTEGER NOT NULL DEFAULT 0,
  submitted_at_ms INTEGER NOT NULL DEFAULT 0,
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  replay_of TEXT REFERENCES runs(id) ON DELETE SET NULL
);
INSERT INTO runs VALUES('20261207-053732-786-38dd64','passed','','{"core":"pico","mesh":[1,1],"workloads":["add.S"],"objective":"upgrade fixture: a direct run that passes","budget":{"max_iterations":2,"max_usd":1.0,"max_wall_s":3600},"coverage":false,"rtl_timeout":1000000,"max_cycle":null,"workload_args":{},"core_descriptor":null,"options":{"rtl_edits":false,"fast_path":true,"task_prompts":false},"backend":"direct","model":null,"checkouts":null,"tools":[]}','pico',1,1,'upgrade fixture: a direct run that passes','["add.S"]','direct','',2,1.0,3600,0,1796621852786,1796621852787,1796621852938,NULL);
INSERT INTO runs VALUES('20261207-053732-956-d538dd','budget_exceeded','iteration limit reached: 2 of budget.max_iterations 2 iterations ended without a pass','{"core":"pico","mesh":[1,1],"workloads":["add.S"],"objective":"upgrade fixture: a direct run that fails","budget":{"max_iterations":2,"max_usd":1.0,"max_wall_s":3600},"coverage":false,"rtl_timeout":1000000,"max_cycle":null,"workload_args":{},"core_descriptor":null,"options":{"rtl_edits":false,"fast_path":true,"task_prompts":false},"backend":"direct","model":null,"checkouts":null,"tools":[]}','pico',1,1,'upgrade fixture: a direct run that fails','["add.S"]','direct','',2,1.0,3600,0,1796621852956,1796621852956,1796621853024,NULL);
INSERT INTO runs VALUES('20261207-053733-040-4835f2','budget_exceeded','iteration limit reached: 2 of budget.max_iterations 2 iterations ended without a pass','{"core":"pico","mesh":[1,1],"workloads":["add.S"],"objective":"upgrade fixture: planned by a model, and failing, so diagnosed","budget":{"max_iterations":2,"max_usd":1.0,"max_wall_s":3600},"coverage":false,"rtl_timeout":1000000,"max_cycle":null,"workload_args":{},"core_descriptor":null,"options":{"rtl_edits":false,"fast_path":true,"task_prompts":false},"backend":"vertex","model":"gemini-2.5-flash","checkouts":null,"tools":[]}','pico',1,1,'upgrade fixture: planned by a model, and failing, so diagnosed','["add.S"]','vertex','gemini-2.5-flash',2,1.0,3600,0,1796621853040,1796621853040,1796621853131,NULL);
INSERT INTO runs VALUES('20261207-053733-150-ea3151','passed','','{"core":"pico","mesh":[1,1],"workloads":["add.S"],"objective":"upgrade fixture: planned by a model","budget":{"max_iterations":2,"max_usd":1.0,"max_wall_s":3600},"coverage":false,"rtl_timeout":1000000,"max_cycle":null,"workload_args":{},"core_descriptor":null,"options":{"rtl_edits":false,"fast_path":true,"task_prompts":false},"backend":"vertex","model":"gemini-2.5-flash","checkouts":null,"tools":[]}','pico',1,1,'upgrade fixture: planned by a model','["add.S"]','vertex','gemini-2.5-flash',2,1.0,3600,0,1796621853150,1796621853151,1796621853192,NULL);
CREATE TABLE iterations (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  cost_usd REAL NOT NULL DEFAULT 0,
  wall_s REAL NOT NULL DEFAULT 0,
  passed INTEGER NOT NULL DEFAULT 0 CHECK (passed IN (0, 1)),
  plan_text TEXT NOT NULL DEFAULT '',     -- the plan as the planner wrote it
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;
INSERT INTO iterations VALUES('20261207-053732-786-38dd64',1,1796621852791,1796621852938,0.0,0.14598061200000000958,1,replace('TASK: build | deps= | kind=config | Build the pico 1x1 mesh with OpenPiton''s defaults and run add.S\n','\n',char(10)));
INSERT INTO iterations VALUES('20261207-053732-956-d538dd',1,1796621852957,1796621852991,0.0,0.033586009000000000002,0,replace('TASK: build | deps= | kind=config | Build the pico 1x1 mesh with OpenPiton''s defaults and run add.S\n','\n',char(10)));
INSERT INTO iterations VALUES('20261207-053732-956-d538dd',2,1796621852992,1796621853024,0.0,0.031444856999999999669,0,replace('TASK: build | deps= | kind=config | Build the pico 1x1 mesh with OpenPiton''s defaults and run add.S\n','\n',char(10)));
INSERT INTO iterations VALUES('20261207-053733-040-4835f2',1,1796621853042,1796621853084,0.00060999999999999997366,0.040727258000000002291,0,replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)));
INSERT INTO iterations VALUES('20261207-053733-040-4835f2',2,1796621853088,1796621853127,0.0018299999999999998125,0.038542475999999999125,0,replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)));
INSERT INTO iterations VALUES('20261207-053733-150-ea3151',1,1796621853152,1796621853191,0.00060999999999999997366,0.038599581000000000863,1,replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)));
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,                  -- the planner's id, unique in its iteration
  kind TEXT NOT NULL,                     -- config | workload | unit_test | rtl
  instruction TEXT NOT NULL DEFAULT '',
  deps_json TEXT NOT NULL DEFAULT '[]',   -- JSON array of task ids
  checkout TEXT,                          -- the checkout it was built in
  core TEXT,
  mesh_x INTEGER,
  mesh_y INTEGER,
  network TEXT,
  l1i_size INTEGER,
  l1i_assoc INTEGER,
  l1d_size INTEGER,
  l1d_assoc INTEGER,
  l15_size INTEGER,
  l15_assoc INTEGER,
  l2_size INTEGER,
  l2_assoc INTEGER,
  rtl_defines TEXT NOT NULL DEFAULT '',   -- space-separated, sorted
  rtl_edits TEXT NOT NULL DEFAULT '',     -- unified diff
  rtl_edits_hash TEXT NOT NULL DEFAULT '',
  extra_flags TEXT NOT NULL DEFAULT '',
  build_id TEXT,
  build_outcome TEXT NOT NULL DEFAULT '', -- '' | succeeded | reused | failed
  build_reused INTEGER NOT NULL DEFAULT 0 CHECK (build_reused IN (0, 1)),
  failure_reason TEXT NOT NULL DEFAULT '',  -- e.g. way_rule, build_failed
  stage TEXT NOT NULL DEFAULT 'pending',  -- a TaskStage
  passed INTEGER CHECK (passed IN (0, 1)),  -- NULL until the task ends
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  UNIQUE (run_id, iteration, task_id)
);
INSERT INTO tasks VALUES(1,'20261207-053732-786-38dd64',1,'build','config','Build the pico 1x1 mesh with OpenPiton''s defaults and run add.S','[]','@CHECKOUT@','pico',1,1,NULL,16384,4,8192,4,8192,4,65536,4,'','','','','mace_78456f41f00951d1','succeeded',0,'','passed',1,NULL,1796621852937);
INSERT INTO tasks VALUES(2,'20261207-053732-956-d538dd',1,'build','config','Build the pico 1x1 mesh with OpenPiton''s defaults and run add.S','[]','@CHECKOUT@','pico',1,1,NULL,16384,4,8192,4,8192,4,65536,4,'','','','','mace_78456f41f00951d1','reused',1,'workload_failed','failed',0,NULL,1796621852991);
INSERT INTO tasks VALUES(3,'20261207-053732-956-d538dd',2,'build','config','Build the pico 1x1 mesh with OpenPiton''s defaults and run add.S','[]','@CHECKOUT@','pico',1,1,NULL,16384,4,8192,4,8192,4,65536,4,'','','','','mace_78456f41f00951d1','reused',1,'workload_failed','failed',0,NULL,1796621853023);
INSERT INTO tasks VALUES(4,'20261207-053733-040-4835f2',1,'plain','config','build the defaults','[]','@CHECKOUT@','pico',1,1,NULL,16384,4,8192,4,8192,4,65536,4,'','','','','mace_78456f41f00951d1','reused',1,'workload_failed','failed',0,NULL,1796621853082);
INSERT INTO tasks VALUES(5,'20261207-053733-040-4835f2',2,'plain','config','build the defaults','[]','@CHECKOUT@','pico',1,1,NULL,16384,4,8192,4,8192,4,65536,4,'','','','','mace_78456f41f00951d1','reused',1,'workload_failed','failed',0,NULL,1796621853126);
INSERT INTO tasks VALUES(6,'20261207-053733-150-ea3151',1,'plain','config','build the defaults','[]','@CHECKOUT@','pico',1,1,NULL,16384,4,8192,4,8192,4,65536,4,'','','','','mace_78456f41f00951d1','reused',1,'','passed',1,NULL,1796621853190);
CREATE TABLE task_results (
  task_row INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,               -- 0 for the first gate workload
  workload TEXT NOT NULL,
  verdict TEXT NOT NULL,                  -- none | pass | fail | timeout | maxcycles
  returncode INTEGER,
  run_dir TEXT NOT NULL DEFAULT '',
  wall_s REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (task_row, ordinal)
) WITHOUT ROWID;
INSERT INTO task_results VALUES(1,0,'add.S','pass',0,'@CHECKOUT@/build/manycore/mace_78456f41f00951d1/runs/add.S-1',0.029856909000000000919);
INSERT INTO task_results VALUES(2,0,'add.S','fail',0,'@CHECKOUT@/build/manycore/mace_78456f41f00951d1/runs/add.S-2',0.025188104999999998828);
INSERT INTO task_results VALUES(3,0,'add.S','fail',0,'@CHECKOUT@/build/manycore/mace_78456f41f00951d1/runs/add.S-3',0.021679989000000000204);
INSERT INTO task_results VALUES(4,0,'add.S','fail',0,'@CHECKOUT@/build/manycore/mace_78456f41f00951d1/runs/add.S-4',0.026200337000000000625);
INSERT INTO task_results VALUES(5,0,'add.S','fail',0,'@CHECKOUT@/build/manycore/mace_78456f41f00951d1/runs/add.S-5',0.026739689000000000512);
INSERT INTO task_results VALUES(6,0,'add.S','pass',0,'@CHECKOUT@/build/manycore/mace_78456f41f00951d1/runs/add.S-6',0.026051233999999999502);
CREATE TABLE diagnoses (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  fix TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL CHECK (source IN ('narrowing', 'llm', 'rule', 'fallback')),
  evidence TEXT NOT NULL DEFAULT '',
  recovered INTEGER NOT NULL DEFAULT 0 CHECK (recovered IN (0, 1)),
  created_at_ms INTEGER NOT NULL
);
INSERT INTO diagnoses VALUES(1,'20261207-053732-956-d538dd',1,'build','unknown','retry with more context','fallback',replace('… Stage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000a0\nL15_MON_END\n\n2676000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000b0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000b0\nL15_MON_END\n\n2676500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000c0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000c0\nL15_MON_END\n\n2677000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000d0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000d0\nL15_MON_END\n\n2677500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000e0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000e0\nL15_MON_END\n\n2678000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000f0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2678000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000f0\nL15_MON_END\n\n4498250 : Simulation -> FAIL(HIT BAD TRAP)\n- @CHECKOUT@/piton/verif/env/manycore/monitor.tmp.v:91: Verilog $finish\n','\n',char(10)),0,1796621852992);
INSERT INTO diagnoses VALUES(2,'20261207-053732-956-d538dd',2,'build','unknown','retry with more context','fallback',replace('… Stage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000a0\nL15_MON_END\n\n2676000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000b0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000b0\nL15_MON_END\n\n2676500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000c0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000c0\nL15_MON_END\n\n2677000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000d0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000d0\nL15_MON_END\n\n2677500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000e0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000e0\nL15_MON_END\n\n2678000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000f0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2678000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000f0\nL15_MON_END\n\n4498250 : Simulation -> FAIL(HIT BAD TRAP)\n- @CHECKOUT@/piton/verif/env/manycore/monitor.tmp.v:91: Verilog $finish\n','\n',char(10)),0,1796621853024);
INSERT INTO diagnoses VALUES(3,'20261207-053733-040-4835f2',1,'plain','workload_failed',replace('none needed\nLESSON: the fixture''s verdict decides','\n',char(10)),'llm',replace('… Stage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000a0\nL15_MON_END\n\n2676000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000b0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000b0\nL15_MON_END\n\n2676500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000c0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000c0\nL15_MON_END\n\n2677000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000d0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000d0\nL15_MON_END\n\n2677500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000e0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000e0\nL15_MON_END\n\n2678000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000f0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2678000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000f0\nL15_MON_END\n\n4498250 : Simulation -> FAIL(HIT BAD TRAP)\n- @CHECKOUT@/piton/verif/env/manycore/monitor.tmp.v:91: Verilog $finish\n','\n',char(10)),0,1796621853087);
INSERT INTO diagnoses VALUES(4,'20261207-053733-040-4835f2',2,'plain','workload_failed',replace('none needed\nLESSON: the fixture''s verdict decides','\n',char(10)),'llm',replace('… Stage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000a0\nL15_MON_END\n\n2676000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000b0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000b0\nL15_MON_END\n\n2676500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000c0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2676500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000c0\nL15_MON_END\n\n2677000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000d0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000d0\nL15_MON_END\n\n2677500 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000e0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2677500 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000e0\nL15_MON_END\n\n2678000 TILE0 L1.5 th0: Received PCX PCX_REQTYPE_LOAD   Addr 0x00400000f0, nc 0, size 3, invalall 0, pf 0, bs 0, bsi 0, l1way 0\n   Data: 0x0000000000000000\n\n             2678000 L15 TILE0:\nNoC1 credit:  8\nNoC1 reserved credit:  0\nTILE0 Pipeline: *  X  X \nStage 1 status:    Operation: L15_REQTYPE_LOAD\n   TILE0 S1 Address: 0x00400000f0\nL15_MON_END\n\n4498250 : Simulation -> FAIL(HIT BAD TRAP)\n- @CHECKOUT@/piton/verif/env/manycore/monitor.tmp.v:91: Verilog $finish\n','\n',char(10)),0,1796621853129);
CREATE TABLE postmortems (
  run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  assessment TEXT NOT NULL CHECK (assessment IN (
    'fixable_config', 'likely_hardware_limitation', 'inconclusive')),
  explanation TEXT NOT NULL DEFAULT '',
  next_steps TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE llm_calls (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER,
  phase TEXT NOT NULL,                    -- e.g. plan, task, diagnosis, postmortem
  task_id TEXT,
  backend TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  thinking_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  wall_s REAL NOT NULL DEFAULT 0,
  success INTEGER NOT NULL CHECK (success IN (0, 1)),
  error_class TEXT NOT NULL DEFAULT '',   -- e.g. rate_limited, timeout; '' on success
  reply_text TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
);
INSERT INTO llm_calls VALUES(1,'20261207-053733-040-4835f2',1,'planning','','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.0045528260000000002685,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853047);
INSERT INTO llm_calls VALUES(2,'20261207-053733-040-4835f2',1,'diagnosis','plain','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.0017878910000000000028,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853087);
INSERT INTO llm_calls VALUES(3,'20261207-053733-040-4835f2',2,'planning','','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.0017698139999999999791,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853090);
INSERT INTO llm_calls VALUES(4,'20261207-053733-040-4835f2',2,'planning','','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.00070078399999999997724,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853091);
INSERT INTO llm_calls VALUES(5,'20261207-053733-040-4835f2',2,'planning','','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.00058510099999999998048,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853091);
INSERT INTO llm_calls VALUES(6,'20261207-053733-040-4835f2',2,'diagnosis','plain','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.0014349650000000000685,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853129);
INSERT INTO llm_calls VALUES(7,'20261207-053733-040-4835f2',2,'post_mortem','plain','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.001207298000000000095,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853131);
INSERT INTO llm_calls VALUES(8,'20261207-053733-150-ea3151',1,'planning','','vertex','gemini-2.5-flash',1200,80,20,0.00060999999999999997366,0.0025704149999999999394,1,'',replace('TASK: plain | deps= | kind=config | build the defaults\nDIAGNOSIS: workload_failed\nFIX: none needed\nLESSON: the fixture''s verdict decides\n','\n',char(10)),1796621853155);
CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL CHECK (seq >= 1),
  at_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,                     -- an EventKind
  state TEXT CHECK (state IS NULL OR state IN (
    'queued', 'running', 'passed', 'failed', 'planning_failed', 'budget_exceeded',
    'checksum_mismatch', 'unsupported_core', 'error', 'cancelled')),
  iteration INTEGER NOT NULL DEFAULT 0,
  task_id TEXT NOT NULL DEFAULT '',
  stage TEXT NOT NULL DEFAULT '',
  workload TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  message TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO events VALUES('20261207-053732-786-38dd64',1,1796621852786,'submitted','queued',0,'','','','','submitted by uid 0: pico 1x1');
INSERT INTO events VALUES('20261207-053732-786-38dd64',2,1796621852787,'state_changed','running',0,'','','','','running');
INSERT INTO events VALUES('20261207-053732-786-38dd64',3,1796621852791,'iteration_started',NULL,1,'','','','','iteration 1');
INSERT INTO events VALUES('20261207-053732-786-38dd64',4,1796621852792,'message',NULL,1,'','','','','plan: build');
INSERT INTO events VALUES('20261207-053732-786-38dd64',5,1796621852792,'level_started',NULL,1,'','','','','level 0: build');
INSERT INTO events VALUES('20261207-053732-786-38dd64',6,1796621852792,'task_stage',NULL,1,'build','building','','','building');
INSERT INTO events VALUES('20261207-053732-786-38dd64',7,1796621852906,'task_stage',NULL,1,'build','running','','','running');
INSERT INTO events VALUES('20261207-053732-786-38dd64',8,1796621852937,'verdict',NULL,1,'build','','add.S','pass','');
INSERT INTO events VALUES('20261207-053732-786-38dd64',9,1796621852938,'task_stage',NULL,1,'build','passed','','','passed');
INSERT INTO events VALUES('20261207-053732-786-38dd64',10,1796621852938,'iteration_finished',NULL,1,'','','','','passed in 0.145981 s');
INSERT INTO events VALUES('20261207-053732-786-38dd64',11,1796621852938,'state_changed','passed',0,'','','','','passed');
INSERT INTO events VALUES('20261207-053732-956-d538dd',1,1796621852956,'submitted','queued',0,'','','','','submitted by uid 0: pico 1x1');
INSERT INTO events VALUES('20261207-053732-956-d538dd',2,1796621852956,'state_changed','running',0,'','','','','running');
INSERT INTO events VALUES('20261207-053732-956-d538dd',3,1796621852958,'iteration_started',NULL,1,'','','','','iteration 1');
INSERT INTO events VALUES('20261207-053732-956-d538dd',4,1796621852958,'message',NULL,1,'','','','','plan: build');
INSERT INTO events VALUES('20261207-053732-956-d538dd',5,1796621852958,'level_started',NULL,1,'','','','','level 0: build');
INSERT INTO events VALUES('20261207-053732-956-d538dd',6,1796621852958,'task_stage',NULL,1,'build','building','','','building');
INSERT INTO events VALUES('20261207-053732-956-d538dd',7,1796621852964,'task_stage',NULL,1,'build','running','','','running');
INSERT INTO events VALUES('20261207-053732-956-d538dd',8,1796621852991,'verdict',NULL,1,'build','','add.S','fail','');
INSERT INTO events VALUES('20261207-053732-956-d538dd',9,1796621852991,'task_stage',NULL,1,'build','failed','','','failed: workload_failed: 4498250 : Simulation -> FAIL(HIT BAD TRAP)');
INSERT INTO events VALUES('20261207-053732-956-d538dd',10,1796621852992,'iteration_finished',NULL,1,'','','','','failed in 0.033586 s');
INSERT INTO events VALUES('20261207-053732-956-d538dd',11,1796621852992,'message',NULL,1,'build','','','','diagnosis of build (fallback): unknown; fix: retry with more context');
INSERT INTO events VALUES('20261207-053732-956-d538dd',12,1796621852992,'iteration_started',NULL,2,'','','','','iteration 2');
INSERT INTO events VALUES('20261207-053732-956-d538dd',13,1796621852992,'message',NULL,2,'','','','','plan: build');
INSERT INTO events VALUES('20261207-053732-956-d538dd',14,1796621852992,'level_started',NULL,2,'','','','','level 0: build');
INSERT INTO events VALUES('20261207-053732-956-d538dd',15,1796621852993,'task_stage',NULL,2,'build','building','','','building');
INSERT INTO events VALUES('20261207-053732-956-d538dd',16,1796621853000,'task_stage',NULL,2,'build','running','','','running');
INSERT INTO events VALUES('20261207-053732-956-d538dd',17,1796621853023,'verdict',NULL,2,'build','','add.S','fail','');
INSERT INTO events VALUES('20261207-053732-956-d538dd',18,1796621853023,'task_stage',NULL,2,'build','failed','','','failed: workload_failed: 4498250 : Simulation -> FAIL(HIT BAD TRAP)');
INSERT INTO events VALUES('20261207-053732-956-d538dd',19,1796621853024,'iteration_finished',NULL,2,'','','','','failed in 0.031445 s');
INSERT INTO events VALUES('20261207-053732-956-d538dd',20,1796621853024,'message',NULL,2,'build','','','','diagnosis of build (fallback): unknown; fix: retry with more context');
INSERT INTO events VALUES('20261207-053732-956-d538dd',21,1796621853025,'state_changed','budget_exceeded',0,'','','','','budget_exceeded: iteration limit reached: 2 of budget.max_iterations 2 iterations ended without a pass');
INSERT INTO events VALUES('20261207-053733-040-4835f2',1,1796621853040,'submitted','queued',0,'','','','','submitted by uid 0: pico 1x1');
INSERT INTO events VALUES('20261207-053733-040-4835f2',2,1796621853041,'state_changed','running',0,'','','','','running');
INSERT INTO events VALUES('20261207-053733-040-4835f2',3,1796621853043,'iteration_started',NULL,1,'','','','','iteration 1');
INSERT INTO events VALUES('20261207-053733-040-4835f2',4,1796621853048,'message',NULL,1,'','','','','plan: plain');
INSERT INTO events VALUES('20261207-053733-040-4835f2',5,1796621853048,'level_started',NULL,1,'','','','','level 0: plain');
INSERT INTO events VALUES('20261207-053733-040-4835f2',6,1796621853048,'task_stage',NULL,1,'plain','building','','','building');
INSERT INTO events VALUES('20261207-053733-040-4835f2',7,1796621853055,'task_stage',NULL,1,'plain','running','','','running');
INSERT INTO events VALUES('20261207-053733-040-4835f2',8,1796621853083,'verdict',NULL,1,'plain','','add.S','fail','');
INSERT INTO events VALUES('20261207-053733-040-4835f2',9,1796621853083,'task_stage',NULL,1,'plain','failed','','','failed: workload_failed: 4498250 : Simulation -> FAIL(HIT BAD TRAP)');
INSERT INTO events VALUES('20261207-053733-040-4835f2',10,1796621853084,'iteration_finished',NULL,1,'','','','','failed in 0.040727 s');
INSERT INTO events VALUES('20261207-053733-040-4835f2',11,1796621853087,'message',NULL,1,'plain','','','',replace('diagnosis of plain (llm): workload_failed; fix: none needed\nLESSON: the fixture''s verdict decides','\n',char(10)));
INSERT INTO events VALUES('20261207-053733-040-4835f2',12,1796621853088,'iteration_started',NULL,2,'','','','','iteration 2');
INSERT INTO events VALUES('20261207-053733-040-4835f2',13,1796621853092,'message',NULL,2,'','','','','plan: plain');
INSERT INTO events VALUES('20261207-053733-040-4835f2',14,1796621853092,'level_started',NULL,2,'','','','','level 0: plain');
INSERT INTO events VALUES('20261207-053733-040-4835f2',15,1796621853092,'task_stage',NULL,2,'plain','building','','','building');
INSERT INTO events VALUES('20261207-053733-040-4835f2',16,1796621853098,'task_stage',NULL,2,'plain','running','','','running');
INSERT INTO events VALUES('20261207-053733-040-4835f2',17,1796621853126,'verdict',NULL,2,'plain','','add.S','fail','');
INSERT INTO events VALUES('20261207-053733-040-4835f2',18,1796621853126,'task_stage',NULL,2,'plain','failed','','','failed: workload_failed: 4498250 : Simulation -> FAIL(HIT BAD TRAP)');
INSERT INTO events VALUES('20261207-053733-040-4835f2',19,1796621853127,'iteration_finished',NULL,2,'','','','','failed in 0.038542 s');
INSERT INTO events VALUES('20261207-053733-040-4835f2',20,1796621853129,'message',NULL,2,'plain','','','',replace('diagnosis of plain (llm): workload_failed; fix: none needed\nLESSON: the fixture''s verdict decides','\n',char(10)));
INSERT INTO events VALUES('20261207-053733-040-4835f2',21,1796621853131,'message',NULL,0,'','','','','the post-mortem reply has no assessment; discarded');
INSERT INTO events VALUES('20261207-053733-040-4835f2',22,1796621853131,'state_changed','budget_exceeded',0,'','','','','budget_exceeded: iteration limit reached: 2 of budget.max_iterations 2 iterations ended without a pass');
INSERT INTO events VALUES('20261207-053733-150-ea3151',1,1796621853150,'submitted','queued',0,'','','','','submitted by uid 0: pico 1x1');
INSERT INTO events VALUES('20261207-053733-150-ea3151',2,1796621853151,'state_changed','running',0,'','','','','running');
INSERT INTO events VALUES('20261207-053733-150-ea3151',3,1796621853152,'iteration_started',NULL,1,'','','','','iteration 1');
INSERT INTO events VALUES('20261207-053733-150-ea3151',4,1796621853155,'message',NULL,1,'','','','','plan: plain');
INSERT INTO events VALUES('20261207-053733-150-ea3151',5,1796621853155,'level_started',NULL,1,'','','','','level 0: plain');
INSERT INTO events VALUES('20261207-053733-150-ea3151',6,1796621853156,'task_stage',NULL,1,'plain','building','','','building');
INSERT INTO events VALUES('20261207-053733-150-ea3151',7,1796621853163,'task_stage',NULL,1,'plain','running','','','running');
INSERT INTO events VALUES('20261207-053733-150-ea3151',8,1796621853191,'verdict',NULL,1,'plain','','add.S','pass','');
INSERT INTO events VALUES('20261207-053733-150-ea3151',9,1796621853191,'task_stage',NULL,1,'plain','passed','','','passed');
INSERT INTO events VALUES('20261207-053733-150-ea3151',10,1796621853191,'iteration_finished',NULL,1,'','','','','passed in 0.038600 s');
INSERT INTO events VALUES('20261207-053733-150-ea3151',11,1796621853192,'state_changed','passed',0,'','','','','passed');
CREATE TABLE narrowing_builds (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  undone TEXT NOT NULL,                   -- which changes it undid, for people
  build_id TEXT NOT NULL DEFAULT '',
  checkout TEXT NOT NULL DEFAULT '',
  passed INTEGER NOT NULL CHECK (passed IN (0, 1)),
  failure_reason TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX runs_state ON runs(state);
CREATE INDEX runs_uid ON runs(submitted_by_uid, id);
CREATE INDEX runs_replay_of ON runs(replay_of);
CREATE INDEX tasks_build_id ON tasks(build_id);
CREATE INDEX diagnoses_run ON diagnoses(run_id, iteration);
CREATE INDEX llm_calls_run ON llm_calls(run_id);
CREATE INDEX narrowing_builds_run ON narrowing_builds(run_id, iteration);
COMMIT;
PRAGMA user_version=2;
