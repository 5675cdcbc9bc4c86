// expect: success
Promise.reject(new Error('x')).catch((e) => console.log('handled', e.message));
