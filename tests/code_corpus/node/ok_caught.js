// expect: success
try { JSON.parse('{'); } catch (e) { console.log('caught', e.name); }
