// expect: Error
async function load() { throw new Error('load failed'); }
load();
