// expect: AggregateError
Promise.any([]);
